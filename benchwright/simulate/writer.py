"""The shared simulated writer: an ordinary-prose candidate answer (also the fallback for any prompt no
benchmark's simulated back end answers).

A candidate with skill s addresses each numbered requirement with probability s (re-using the
requirement's content words, which is what the simulated judges look for), mentions each colour
it truly sees with probability s, and with probability (1 - s) / 2 names a colour that is not
there. Verbosity scales the number of filler sentences, which add length but no coverage. A writer whose params
name a ``family`` ends with its family's mark (``house_style``).
"""

from __future__ import annotations

import random

from benchwright.colors import PALETTE

from . import house_style
from .request import SimRequest
from .vision import colours_in_images
from .words import NO_LEADS, QueryLeads, colour_words, content_words, join_words, parse_query

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


def colour_report(rng: random.Random, true_colours: list[str], skill: float) -> list[str]:
    """Colours a model of this skill mentions: each true one with p=skill, maybe one wrong."""
    mentioned = [colour for colour in true_colours if rng.random() < skill]
    if rng.random() < (1.0 - skill) / 2:
        wrong_choices = sorted(set(PALETTE) - set(true_colours))
        if wrong_choices:
            mentioned.insert(rng.randrange(len(mentioned) + 1), rng.choice(wrong_choices))
    return mentioned


def candidate_answer(request: SimRequest, leads: QueryLeads = NO_LEADS) -> str:
    """An ordinary-prose answer to the last user message, read as a query written with ``leads``."""
    rng = request.rng
    skill = request.setting("skill")
    verbosity = request.setting("verbosity")
    query = parse_query(request.last_user_text, leads)

    if request.image_urls:
        true_colours = colours_in_images(request.image_urls)
    elif query.description:
        true_colours = colour_words(query.description)
    else:
        true_colours = []
    mentioned = colour_report(rng, true_colours, skill)

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
    return house_style.signed(request, "\n\n".join(paragraphs))
