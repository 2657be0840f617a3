"""Creation prompts (benchwright/creation/README.md#the-query, #pairwise-judging, #visual-factuality-score): the candidate, describe, focus, pairwise-judge and VFS-judge messages.

Items are plain dicts with the keys ``item_id, category, task, role, background, instruction,
requirements, subjective_criteria, visual_factuality_criteria, ground_truth``. Images travel as
data URLs (``data:image/png;base64,...``) and are placed in OpenAI-style chat messages, which
litellm accepts for every provider.

The prompts are our own wording of the method. Bump the matching ``*_PROMPT_VERSION`` whenever
a prompt's text changes, so cached responses and derived assets are known to be stale.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping


from benchwright import judging

CANDIDATE_PROMPT_VERSION = "creation-candidate-v1"
DESCRIBE_PROMPT_VERSION = "creation-describe-v1"
FOCUS_PROMPT_VERSION = "creation-focus-v1"
PAIRWISE_PROMPT_VERSION = "creation-pairwise-v1"
VFS_PROMPT_VERSION = "creation-vfs-v1"

# Fixed phrases of the prompts. The offline simulator recognises prompts and reads their parts
# by these phrases, so they are named here once.
QUERY_ROLE_LEAD = "Assume you are "
QUERY_INSTRUCTION_LEAD = "Please follow the requirements below to "
TEXT_ONLY_NOTE = (
    "Note: no images are provided with this request. Instead, you are given a description "
    "of the images written by another model; rely on it as if you could see the images."
)
DESCRIPTION_LEAD = "Description of the image: "
DESCRIBE_MARKER = "First, say how many images there are."
FOCUS_LEAD = "Pay special attention to: "
FOCUS_ANSWER_LEAD = "Contents to observe:"
PAIRWISE_VERDICT_LINE = "Final Verdict is: [[VERDICT]]"
VFS_SCORE_LINES = (
    "Response A Visual Factuality Score: <x>/10\nResponse B Visual Factuality Score: <y>/10"
)

# Tags that delimit the parts of the judge prompts (the user message).
TASK_TAG = "task"
ANSWER_A_TAG = "assistant_a_answer"
ANSWER_B_TAG = "assistant_b_answer"
CRITERIA_TAG = "evaluation_criteria"
VISUAL_CRITERIA_TAG = "visual_factuality_criteria"
GROUND_TRUTH_TAG = "ground_truth"
# Answers are untrusted text: inside a prompt part, all of these are defused (benchwright.judging.tagged).
PROMPT_TAGS = (TASK_TAG, ANSWER_A_TAG, ANSWER_B_TAG, CRITERIA_TAG, VISUAL_CRITERIA_TAG, GROUND_TRUTH_TAG)


def _numbered(requirements: Iterable[str]) -> str:
    """Number the requirements 1., 2., ... (dropping any numbering they already carry)."""
    lines = []
    for number, requirement in enumerate(requirements, start=1):
        text = re.sub(r"^\s*\d+\s*[.)]\s*", "", str(requirement)).strip()
        lines.append(f"{number}. {text}")
    return "\n".join(lines)


def build_query(item: Mapping, image_descriptions: str | None = None) -> str:
    """The candidate's query (benchwright/creation/README.md#the-query).

    With ``image_descriptions`` this is the text-only variant: a note that no images are
    provided, then ``Description of the image: <descriptions>`` after the requirements.
    """
    lines = [
        f"{QUERY_ROLE_LEAD}{item['role']}",
        str(item.get("background") or "").strip(),
        f"{QUERY_INSTRUCTION_LEAD}{str(item['instruction']).strip().rstrip('.')}.",
        _numbered(item.get("requirements") or []),
    ]
    query = "\n".join(line for line in lines if line)
    if image_descriptions is not None:
        query += f"\n\n{TEXT_ONLY_NOTE}\n{DESCRIPTION_LEAD}{image_descriptions.strip()}"
    return query


def _image_parts(image_urls: Iterable[str] | None) -> list[dict]:
    return [{"type": "image_url", "image_url": {"url": url}} for url in image_urls or []]


def _user_message(text: str, image_urls: Iterable[str] | None = None) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}, *_image_parts(image_urls)]}


def candidate_messages(
    item: Mapping, image_urls: list[str], image_descriptions: str | None = None
) -> list[dict]:
    """Chat messages for a candidate model: the query text, then one part per image.

    When ``image_descriptions`` is given (text-only model), the images are not sent at all.
    """
    query = build_query(item, image_descriptions)
    if image_descriptions is not None:
        return [_user_message(query)]
    return [_user_message(query, image_urls)]


GENERIC_DESCRIBE_INSTRUCTION = (
    "Describe the image(s) attached to this message for someone who cannot see them. "
    f"{DESCRIBE_MARKER} Then, for each image in turn, describe:\n"
    "1. its overall content;\n"
    "2. what kind of image it is (photograph, drawing, chart, map, screenshot, document, ...);\n"
    "3. the people, characters and objects in it, with their appearance and colours;\n"
    "4. the scene and its atmosphere;\n"
    "5. how the people and objects relate to one another;\n"
    "6. any text in it, copied exactly.\n"
    "Describe only what is visible; do not invent details."
)


def describe_messages(image_urls: list[str], focus: str | None = None) -> list[dict]:
    """Messages asking a vision model to describe images, for the text-only variant.

    Without ``focus`` this is the generic description; with it, the query-specific one.
    """
    text = GENERIC_DESCRIBE_INSTRUCTION
    if focus:
        text += f"\n{FOCUS_LEAD}{focus.strip()}"
    return [_user_message(text, image_urls)]


FOCUS_SYSTEM = (
    "A vision model will describe some images for a writer who cannot see them. You are shown "
    "only the writer's question. Say which contents of the images the describer should look at "
    "closely so that the writer can answer well. Name things to observe, in one or two lines. "
    "Never answer the question and never guess what the images show."
)

# Our own few-shot examples: question -> contents to observe (never the answer).
FOCUS_EXAMPLES = (
    (
        "Assume you are a children's author.\nPlease follow the requirements below to continue "
        "the story shown in the picture book page.\n1. Keep the characters' personalities.\n"
        "2. End on a hopeful note.",
        "The characters on the page, their expressions and clothes, what each is doing, the "
        "setting, and any words printed on the page.",
    ),
    (
        "Assume you are a travel agent.\nPlease follow the requirements below to plan a one-day "
        "walking route using the map.\n1. Visit at least three sights.\n2. Give walking times.",
        "The names and positions of the sights marked on the map, the streets or paths between "
        "them, the scale bar, and the legend.",
    ),
    (
        "Assume you are a nutrition coach.\nPlease follow the requirements below to write a "
        "recipe from the ingredients in the photo.\n1. List the quantities.\n"
        "2. Keep it vegetarian.",
        "Every ingredient visible, how much of each there seems to be, any packaging labels, and "
        "the kitchen tools shown.",
    ),
    (
        "Assume you are a marketing analyst.\nPlease follow the requirements below to explain "
        "the message of this advertisement.\n1. Identify the target audience.\n2. Explain the "
        "visual metaphor.",
        "The product shown, the slogan and all other text, the people and their activity, the "
        "colours and layout, and any object that stands in for something else.",
    ),
)


def focus_messages(text_only_question: str) -> list[dict]:
    """Few-shot prompt: which contents of the image to observe for this question."""
    shots = "\n\n".join(
        f"Question:\n{question}\n{FOCUS_ANSWER_LEAD} {contents}"
        for question, contents in FOCUS_EXAMPLES
    )
    user = f"{shots}\n\nQuestion:\n{text_only_question.strip()}\n{FOCUS_ANSWER_LEAD}"
    return [{"role": "system", "content": FOCUS_SYSTEM}, {"role": "user", "content": user}]


PAIRWISE_SYSTEM = (
    "You are an impartial expert judge of writing that is grounded in images. Two AI "
    "assistants, A and B, answered the same task. Decide which answer is better.\n"
    "How to judge:\n"
    "1. Read the task and, when images are attached, study them: they are the context both "
    "assistants were given.\n"
    "2. Assess each answer on its own against the evaluation criteria: does it fulfil the "
    "instruction and every requirement, is it faithful to the images, is it well written?\n"
    "3. Then compare the two answers. Guard against position bias: the order in which they are "
    "shown must not influence you. A longer answer is not better for being longer.\n"
    "4. If the differences are minimal, declare a tie.\n"
    "Write a short evaluation of Assistant A's answer, then of Assistant B's answer, then your "
    "comparison. End with exactly one line of this form and nothing after it:\n"
    f"{PAIRWISE_VERDICT_LINE}\n"
    "where VERDICT is one of:\n"
    "A>>B (Assistant A is clearly better), A>B (Assistant A is slightly better), "
    "A=B (tie), B>A (Assistant B is slightly better), B>>A (Assistant B is clearly better)."
)


def pairwise_judge_messages(
    item: Mapping, answer_a: str, answer_b: str, image_urls: list[str] | None
) -> list[dict]:
    """Pairwise judge prompt (benchwright/creation/README.md#pairwise-judging).

    Parts in the method's order: images, task, Assistant A's answer, criteria, Assistant B's
    answer. ``image_urls=None`` makes an LLM-as-a-judge prompt: no images, and the judge is
    told it cannot see them.
    """
    parts = [
        judging.tagged(TASK_TAG, build_query(item), PROMPT_TAGS),
        judging.tagged(ANSWER_A_TAG, answer_a or "", PROMPT_TAGS),
        judging.tagged(CRITERIA_TAG, str(item.get("subjective_criteria") or "").strip(), PROMPT_TAGS),
        judging.tagged(ANSWER_B_TAG, answer_b or "", PROMPT_TAGS),
    ]
    if image_urls is None:
        parts.insert(0, "The images of this task are not shown to you; judge from the text.")
    text = "\n\n".join(parts) + f"\n\nNow evaluate both answers. End with: {PAIRWISE_VERDICT_LINE}"
    return [{"role": "system", "content": PAIRWISE_SYSTEM}, _user_message(text, image_urls)]


VFS_SYSTEM = (
    "You are an expert judge of visual factuality: how faithfully an answer reflects what is "
    "actually in the images it is about. Two AI assistants, A and B, answered the same task; "
    "score each answer separately against the visual factuality criteria.\n"
    "Scoring rule: if the criteria have X top-level aspects, each aspect is worth 10/X points. "
    "If an aspect has Y sub-criteria, each sub-criterion is worth 10/X/Y points. An answer earns "
    "the points of every criterion it gets right; it earns nothing for a criterion it gets wrong "
    "or leaves out. Writing quality does not matter here, only visual correctness.\n"
    "Explain briefly which criteria each answer meets, then end with exactly these two lines:\n"
    f"{VFS_SCORE_LINES}\n"
    "where <x> and <y> are numbers from 0 to 10."
)


def vfs_judge_messages(
    item: Mapping, reference_answer: str, candidate_answer: str, image_urls: list[str] | None
) -> list[dict]:
    """Unitary Visual Factuality Score prompt (benchwright/creation/README.md#visual-factuality-score): A = reference, B = candidate.

    The ground truth is included only when the item has one, with a note that the assistants
    did not see it. Items without visual factuality criteria get a prompt that asks the judge
    to check the answers against the images (or the ground truth) as a single aspect; callers
    may prefer to skip such items.
    """
    criteria = str(item.get("visual_factuality_criteria") or "").strip()
    if not criteria:
        criteria = (
            "1. Everything the answer says about the images is visible in them "
            "(no written criteria exist for this item)."
        )
    parts = [
        judging.tagged(TASK_TAG, build_query(item), PROMPT_TAGS),
        judging.tagged(ANSWER_A_TAG, reference_answer or "", PROMPT_TAGS),
        judging.tagged(ANSWER_B_TAG, candidate_answer or "", PROMPT_TAGS),
        judging.tagged(VISUAL_CRITERIA_TAG, criteria, PROMPT_TAGS),
    ]
    ground_truth = str(item.get("ground_truth") or "").strip()
    if ground_truth:
        parts.append(
            "The ground truth below is shown only to you; the assistants did not see it.\n"
            + judging.tagged(GROUND_TRUTH_TAG, ground_truth, PROMPT_TAGS)
        )
    if image_urls is None:
        parts.insert(0, "The images of this task are not shown to you; judge from the text.")
    text = "\n\n".join(parts) + f"\n\nNow score both answers. End with:\n{VFS_SCORE_LINES}"
    return [{"role": "system", "content": VFS_SYSTEM}, _user_message(text, image_urls)]
