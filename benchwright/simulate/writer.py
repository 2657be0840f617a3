"""Simulated writers: candidate answers, image descriptions and "what to observe" lists.

A candidate with skill s addresses each numbered requirement with probability s (re-using the
requirement's content words, which is what the simulated judges look for), mentions each colour
it truly sees with probability s, and with probability (1 - s) / 2 names a colour that is not
there. Verbosity scales the number of filler sentences, which add length but no coverage.
"""

from __future__ import annotations

import random

from benchwright.colors import PALETTE
from benchwright.creation.prompts import FOCUS_ANSWER_LEAD, FOCUS_LEAD

from .request import SimRequest
from .vision import colours_in_images, image_colours
from .words import colour_words, content_words, join_words, parse_query

_REQUIREMENT_TEMPLATES = (
    "Following the brief, the text deals with {phrase}.",
    "It gives proper attention to {phrase}, as asked.",
    "Care is taken over {phrase}.",
    "The piece also covers {phrase} in some detail.",
    "Another part of the answer is devoted to {phrase}.",
)
_COLOUR_TEMPLATES = (
    "The picture is dominated by {colours}, and that palette sets the mood for what follows.",
    "Looking at the image, the {colours} shapes stand out first.",
    "What catches the eye in the image are the {colours} areas.",
)
_NO_COLOUR_SENTENCE = "The image gives the piece its starting point."
_FILLER = (
    "Each part builds on the one before it.",
    "The wording stays plain so that it reads easily.",
    "Small details make the whole thing feel more real.",
    "The tone stays warm and approachable throughout.",
    "A short pause here lets the main idea settle.",
    "This keeps the focus where the task puts it.",
    "Nothing here is meant to distract from the main point.",
    "The structure moves from the general to the specific.",
    "It is easy to adapt this to a slightly different setting.",
    "One could add more, but brevity serves the purpose better.",
    "The flow from one idea to the next is kept smooth.",
    "A concrete example helps make the point clear.",
)
_WORDS_PER_REQUIREMENT = 10


def _colour_report(rng: random.Random, true_colours: list[str], skill: float) -> list[str]:
    """Colours a model of this skill mentions: each true one with p=skill, maybe one wrong."""
    mentioned = [colour for colour in true_colours if rng.random() < skill]
    if rng.random() < (1.0 - skill) / 2:
        wrong_choices = sorted(set(PALETTE) - set(true_colours))
        if wrong_choices:
            mentioned.insert(rng.randrange(len(mentioned) + 1), rng.choice(wrong_choices))
    return mentioned


def candidate_answer(request: SimRequest) -> str:
    """An ordinary-prose answer to the last user message (the fallback prompt kind)."""
    rng = request.rng
    skill = request.setting("skill")
    verbosity = request.setting("verbosity")
    query = parse_query(request.last_user_text)

    if request.image_urls:
        true_colours = colours_in_images(request.image_urls)
    elif query.description:
        true_colours = colour_words(query.description)
    else:
        true_colours = []
    mentioned = _colour_report(rng, true_colours, skill)

    sentences = []
    if query.instruction:
        instruction = query.instruction[0].lower() + query.instruction[1:]
        sentences.append(f"As requested, I will {instruction}.")
    else:
        sentences.append("Here is my answer to your request.")
    if mentioned:
        template = rng.choice(_COLOUR_TEMPLATES)
        sentences.append(template.format(colours=join_words(mentioned)))
    elif true_colours or request.image_urls:
        sentences.append(_NO_COLOUR_SENTENCE)

    body = []
    for requirement in query.requirements:
        requirement_words = content_words(requirement)[:_WORDS_PER_REQUIREMENT]
        if requirement_words and rng.random() < skill:
            template = rng.choice(_REQUIREMENT_TEMPLATES)
            body.append(template.format(phrase=join_words(requirement_words)))
    filler_count = int(2 * verbosity + rng.random())
    filler = list(_FILLER)
    rng.shuffle(filler)
    body.extend(filler[index % len(filler)] for index in range(filler_count))
    rng.shuffle(body)
    sentences.extend(body)
    sentences.append("I hope this serves the purpose well.")

    # Three sentences per paragraph reads like normal prose.
    paragraphs = [" ".join(sentences[start : start + 3]) for start in range(0, len(sentences), 3)]
    return "\n\n".join(paragraphs)


def image_description(request: SimRequest) -> str:
    """Answer to a describe prompt: count the images, then their colours, per image."""
    rng = request.rng
    skill = request.setting("skill")
    if not request.image_urls:
        return "No image is attached to this message, so there is nothing to describe."
    count = len(request.image_urls)
    lines = ["There is one image." if count == 1 else f"There are {count} images."]
    for number, url in enumerate(request.image_urls, start=1):
        seen, _background = image_colours(url)
        mentioned = _colour_report(rng, seen, skill)
        line = f"Image {number}: a simple flat illustration on a plain background."
        if mentioned:
            line += f" It shows {join_words(mentioned)} shapes; no people appear."
        else:
            line += " Its shapes are hard to make out."
        line += " The mood is calm and uncluttered. There is no visible text."
        lines.append(line)
    focus = request.last_user_text.partition(FOCUS_LEAD)[2].strip()
    if focus:
        focus = focus.rstrip(".")
        lines.append(f"Regarding {focus}: the shapes described above are what the images offer.")
    return "\n".join(lines)


def contents_to_observe(request: SimRequest) -> str:
    """Answer to a focus prompt: things to look at for the last question, never an answer."""
    last_question = request.last_user_text.rpartition("Question:")[2]
    last_question = last_question.rpartition(FOCUS_ANSWER_LEAD)[0] or last_question
    query = parse_query(last_question)
    topic_words = content_words(" ".join([query.instruction, *query.requirements]))[:3]
    text = "The main objects and their colours, how they are arranged, and any visible text"
    if topic_words:
        text += f", plus anything related to {join_words(topic_words)}"
    return text + "."
