"""Creation's simulated back end (benchwright/creation/README.md): candidates, the describer, the focus list and, in
``simulated_judges``, the pairwise and VFS judges. Simulations, labelled as such everywhere.

Every Creation prompt version is answered by ``answer``, which tells its prompt kinds apart by Creation's
own markers (one benchmark knowing its prompts); a prompt with none of them is a candidate's query.
"""

from __future__ import annotations

from benchwright.creation.prompts import (ANSWER_A_TAG, CANDIDATE_PROMPT_VERSION, DESCRIBE_MARKER,
                                          DESCRIBE_PROMPT_VERSION, DESCRIPTION_LEAD, FOCUS_ANSWER_LEAD, FOCUS_LEAD,
                                          FOCUS_PROMPT_VERSION, PAIRWISE_PROMPT_VERSION, PAIRWISE_VERDICT_LINE,
                                          QUERY_INSTRUCTION_LEAD, QUERY_ROLE_LEAD, VFS_PROMPT_VERSION)
from benchwright.creation.simulated_judges import LEADS, pairwise_judgment, vfs_judgment
from benchwright.simulate.request import SimRequest
from benchwright.simulate.vision import image_colours
from benchwright.simulate.words import content_words, join_words, parse_query
from benchwright.simulate.writer import candidate_answer as prose_answer
from benchwright.simulate.writer import colour_report


def candidate_answer(request: SimRequest) -> str:
    """A candidate's (or the baseline's) answer to a Creation query."""
    return prose_answer(request, LEADS)


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
        mentioned = colour_report(rng, seen, skill)
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
    query = parse_query(last_question, LEADS)
    topic_words = content_words(" ".join([query.instruction, *query.requirements]))[:3]
    text = "The main objects and their colours, how they are arranged, and any visible text"
    if topic_words:
        text += f", plus anything related to {join_words(topic_words)}"
    return text + "."


def _is_pairwise_judge(request: SimRequest) -> bool:
    return PAIRWISE_VERDICT_LINE in request.all_text and f"<{ANSWER_A_TAG}>" in request.last_user_text


def _is_vfs_judge(request: SimRequest) -> bool:
    return "Visual Factuality Score: <x>/10" in request.all_text


def _is_describe(request: SimRequest) -> bool:
    return DESCRIBE_MARKER in request.last_user_text


def _is_focus(request: SimRequest) -> bool:
    return request.last_user_text.rstrip().endswith(FOCUS_ANSWER_LEAD)


def _is_query(request: SimRequest) -> bool:
    return any(lead in request.last_user_text for lead in (QUERY_ROLE_LEAD, QUERY_INSTRUCTION_LEAD, DESCRIPTION_LEAD))


# Checked in order; the first match answers.
_KINDS = (
    (_is_pairwise_judge, PAIRWISE_PROMPT_VERSION, pairwise_judgment),
    (_is_vfs_judge, VFS_PROMPT_VERSION, vfs_judgment),
    (_is_describe, DESCRIBE_PROMPT_VERSION, image_description),
    (_is_focus, FOCUS_PROMPT_VERSION, contents_to_observe),
)


def version_of(request: SimRequest) -> str | None:
    """The Creation prompt version of a request known only by its messages (a stand-in provider over HTTP)."""
    version = next((version for matches, version, _respond in _KINDS if matches(request)), None)
    return version or (CANDIDATE_PROMPT_VERSION if _is_query(request) else None)


RESPONDERS = {CANDIDATE_PROMPT_VERSION: candidate_answer,
              **{version: respond for _matches, version, respond in _KINDS}}
