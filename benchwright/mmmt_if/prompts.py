"""MMMT-IF prompts (benchwright/mmmt_if/README.md#generation, #autorater-and-preferences): the constants of the method, a model's request for turn k (both
variants), the autorater's request, and which sample a turn leaves in the model's history."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


from benchwright import judging
from benchwright.mmmt_if.instruction_following import CATEGORIES, INSTRUCTIONS

BENCHMARK = "mmmt_if"
CANDIDATE_PROMPT_VERSION = "mmmt-if-candidate-v1"
AUTORATER_PROMPT_VERSION = "mmmt-if-autorater-v1"

MAX_TURNS = 20
MAX_IMAGES = 5
MAX_INSTRUCTIONS = len(CATEGORIES)
STANDARD = "standard"
APPENDED = "instructions_appended"
VARIANTS = (STANDARD, APPENDED)
PIF_WEIGHT = 20.0

# Fixed phrases of the prompts (the offline simulator recognises prompts by them).
INSTRUCTION_LEAD = "Instruction: "
VISION_OPENING = "The {count} images below are what this conversation is about (Image 1 to Image {count}, in order)."
TEXT_ONLY_OPENING = ("This conversation is about {count} images that cannot be shown to you; answer from the "
                     "conversation as well as you can.")
REMINDER_LEAD = "Before you answer, remember every instruction given so far in this conversation:"
AUTORATER_MARKER = "Rate the final assistant response of the conversation"
HISTORY_TAG = "conversation"
QUESTION_TAG = "final_question"
RESPONSE_TAG = "response_to_rate"
PROMPT_TAGS = (HISTORY_TAG, QUESTION_TAG, RESPONSE_TAG)

AUTORATER_KEYS = (
    "Creativity", "Richness", "Visual Perception", "Logical Coherence", "Answer Accuracy",
    "Image Relationship Understanding", "Instruction Following", "Overall Quality",
)  # fmt: skip
# The same criteria as warehouse column names (creativity, ..., overall_quality).
SCORE_COLUMNS = tuple(key.lower().replace(" ", "_") for key in AUTORATER_KEYS)


# --- prompts ---------------------------------------------------------------------------------------

def final_user_text(text: str, variant: str, in_force: Sequence[str]) -> str:
    """The last user turn as sent: with the reminder list in the instructions-appended variant."""
    if variant == APPENDED and in_force:
        return f"{text}\n\n{reminder(in_force)}"
    return text


def reminder(instruction_ids: Sequence[str]) -> str:
    """The list appended to the last user turn in the instructions-appended variant."""
    lines = [f"{n}. {INSTRUCTIONS[i].text}" for n, i in enumerate(instruction_ids, start=1)]
    return f"{REMINDER_LEAD}\n" + "\n".join(lines)


def turn_messages(user_texts: Sequence[str], answers: Sequence[str | None], image_urls: Sequence[str],
                  vision: bool, appended_instructions: Sequence[str] | None = None) -> list[dict]:
    """The request for the last of ``user_texts``, with ``answers`` to the earlier ones as history.

    ``answers[i]`` is the model's own answer to ``user_texts[i]`` (None when every sample of that
    turn failed: its user text then joins the next user turn). ``vision`` sends the images with
    the first user turn; otherwise a note says they cannot be shown. ``appended_instructions``
    (the instructions-appended variant) adds the reminder list at the end of the last user turn.
    """
    if len(answers) != len(user_texts) - 1:
        raise ValueError(f"{len(user_texts)} user turns need {len(user_texts) - 1} earlier answers, got {len(answers)}")
    texts = list(user_texts)
    if appended_instructions:
        texts[-1] = final_user_text(texts[-1], APPENDED, appended_instructions)
    count = len(image_urls)
    opening = (VISION_OPENING if vision else TEXT_ONLY_OPENING).format(count=count)
    first: list[dict] = [{"type": "text", "text": opening}]
    if vision:
        first += [{"type": "image_url", "image_url": {"url": url}} for url in image_urls]
    messages: list[dict] = [{"role": "user", "content": first}]
    for index, text in enumerate(texts):
        messages[-1]["content"].append({"type": "text", "text": text})
        if index < len(answers):
            if answers[index] is None:
                continue  # no answer to show: the next user text joins this user turn
            messages.append({"role": "assistant", "content": answers[index]})
            messages.append({"role": "user", "content": []})
    return messages


AUTORATER_SYSTEM = (
    "You evaluate one answer of a multimodal assistant. You are given a conversation between a user and "
    "the assistant about some images, then the user's final question and the assistant's response to "
    f"it. {AUTORATER_MARKER} on each of these criteria, with a whole number from 1 (very poor) to 10 "
    "(excellent):\n"
    "- Creativity: original, engaging ideas where the question leaves room for them.\n"
    "- Richness: useful detail and depth, without padding.\n"
    "- Visual Perception: what the response says about the images is what they show.\n"
    "- Logical Coherence: the reasoning holds together and the response is consistent with the "
    "conversation.\n"
    "- Answer Accuracy: the question is answered correctly.\n"
    "- Image Relationship Understanding: links between the images are understood where relevant.\n"
    "- Instruction Following: every instruction the user gave anywhere in the conversation, which "
    "still applies, is obeyed.\n"
    "- Overall Quality: your overall judgement of the response.\n"
    "Think briefly, then give your scores as a Python dict with exactly these keys, for example:\n"
    + "{" + ", ".join(f"'{key}': 7" for key in AUTORATER_KEYS) + "}"
)


def autorater_messages(user_texts: Sequence[str], answers: Sequence[str | None], response: str,
                       image_urls: Sequence[str] | None) -> list[dict]:
    """Judge prompt (benchwright/mmmt_if/README.md#autorater-and-preferences): history, final question, the response; images when given.

    ``user_texts`` ends with the final question as the model saw it (with the appended reminder in
    that variant); ``answers`` are the model's answers to the earlier turns (None = failed).
    """
    history = []
    for index, text in enumerate(user_texts[:-1]):
        history.append(f"User: {text}")
        history.append(f"Assistant: {answers[index] if answers[index] is not None else '(no answer)'}")
    parts = [
        judging.tagged(HISTORY_TAG, "\n\n".join(history) or "(this is the first turn)", PROMPT_TAGS),
        judging.tagged(QUESTION_TAG, user_texts[-1], PROMPT_TAGS),
        judging.tagged(RESPONSE_TAG, response, PROMPT_TAGS),
        "Now give your scores as the dict.",
    ]
    if image_urls is None:
        parts.insert(0, "The images of this conversation are not shown to you; judge from the text.")
    content: list[dict] = [{"type": "text", "text": "\n\n".join(parts)}]
    content += [{"type": "image_url", "image_url": {"url": url}} for url in image_urls or []]
    return [{"role": "system", "content": AUTORATER_SYSTEM}, {"role": "user", "content": content}]


def history_answer(samples: Iterable[tuple[int, str | None, str | None]]) -> str | None:
    """The answer a turn leaves in the model's history: its lowest-index successful sample
    ((sample_index, response, error) triples); None when every sample failed."""
    for _, response, error in sorted(samples, key=lambda s: s[0]):
        if error is None and isinstance(response, str):
            return response
    return None
