"""Creation's simulated judges: pairwise verdicts and Visual Factuality Scores.

The heuristic is simple but real. An answer's score is
  requirement coverage (mean share of each requirement's content words it uses)
  + 0.3 x share of the criteria's content words it uses
  + 0.8 x visual correctness ((right colours - wrong colours) / true colours, in [-1, 1])
  + a small length term (up to 0.1, saturating at 250 words).
True colours are those the judge sees in the attached images plus colours named in any
visual-criteria / ground-truth part of the prompt. The score difference plus a little noise is
mapped to the five verdicts (a judge with a ``self_preference`` param first adds it to the score of an answer in
its own family's house style, ``benchwright.simulate.house_style``); then, with probability ``position_bias``, the
verdict moves one step toward A; then, with probability ``malformed_rate``, the output carries no parsable verdict.

The Visual Factuality Score follows the rubric's "each aspect is worth 10/X points": each true colour is an equal
share of 10 points (a wrong one costs half a share); where no colour can be checked, each line of the criteria is
an aspect, earned by the share of its content words the answer uses. An answer earns only what it addresses: one
that says nothing about the picture gets 0, never a middle score.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchwright.creation.prompts import (ANSWER_A_TAG, ANSWER_B_TAG, CRITERIA_TAG, DESCRIPTION_LEAD, GROUND_TRUTH_TAG,
                                          QUERY_INSTRUCTION_LEAD, QUERY_ROLE_LEAD, TASK_TAG, VISUAL_CRITERIA_TAG)
from benchwright.simulate import house_style
from benchwright.simulate.request import SimRequest
from benchwright.simulate.vision import colours_in_images
from benchwright.simulate.words import (QueryLeads, colour_words, content_words, join_words, parse_query,
                                       tagged_section, words)

CRITERIA_WEIGHT = 0.3
VISUAL_WEIGHT = 0.8
LENGTH_WEIGHT = 0.1
LENGTH_SATURATION_WORDS = 250
NOISE_SD = 0.05
TIE_MARGIN = 0.1  # |difference| up to this is a tie
CLEAR_MARGIN = 0.6  # beyond this one answer is clearly better

# How a Creation query writes its parts (creation.prompts.build_query): for the judges and the writers.
LEADS = QueryLeads(role=QUERY_ROLE_LEAD, instruction=QUERY_INSTRUCTION_LEAD, description=DESCRIPTION_LEAD)

# From "A clearly better" to "B clearly better"; a position-A nudge moves one step left.
VERDICT_SCALE = ("A>>B", "A>B", "A=B", "B>A", "B>>A")


@dataclass
class Assessment:
    requirements_met: int
    requirements_total: int
    requirement_coverage: float
    criteria_share: float
    right_colours: list[str]
    wrong_colours: list[str]
    visual: float
    word_count: int

    @property
    def score(self) -> float:
        length = min(1.0, self.word_count / LENGTH_SATURATION_WORDS)
        return (
            self.requirement_coverage
            + CRITERIA_WEIGHT * self.criteria_share
            + VISUAL_WEIGHT * self.visual
            + LENGTH_WEIGHT * length
        )


def _share_present(wanted: list[str], present: set[str]) -> float:
    return sum(word in present for word in wanted) / len(wanted) if wanted else 0.0


def assess(answer: str, task: str, criteria: str, true_colours: list[str]) -> Assessment:
    query = parse_query(task, LEADS)
    answer_words = set(content_words(answer))
    requirement_words = [w for w in (content_words(r) for r in query.requirements) if w]
    if not requirement_words:
        requirement_words = [content_words(query.instruction or task)] if task else []
        requirement_words = [w for w in requirement_words if w]
    shares = [_share_present(wanted, answer_words) for wanted in requirement_words]

    mentioned = colour_words(answer)
    right = [colour for colour in mentioned if colour in true_colours]
    wrong = [colour for colour in mentioned if colour not in true_colours]
    if true_colours:
        visual = max(-1.0, min(1.0, (len(right) - len(wrong)) / len(true_colours)))
    else:
        visual = 0.0  # nothing to check against

    return Assessment(
        requirements_met=sum(share >= 0.5 for share in shares),
        requirements_total=len(shares),
        requirement_coverage=sum(shares) / len(shares) if shares else 0.0,
        criteria_share=_share_present(content_words(criteria), answer_words),
        right_colours=right,
        wrong_colours=wrong,
        visual=visual,
        word_count=len(words(answer)),
    )


def _stated_colours(prompt: str) -> list[str]:
    """Colours named in the visual criteria and ground truth parts of a judge prompt."""
    stated = [tagged_section(prompt, VISUAL_CRITERIA_TAG), tagged_section(prompt, GROUND_TRUTH_TAG)]
    return colour_words("\n".join(stated))


def _true_colours(request: SimRequest, prompt: str) -> list[str]:
    colours = colours_in_images(request.image_urls)
    for colour in _stated_colours(prompt):
        if colour not in colours:
            colours.append(colour)
    return colours


def _describe(name: str, assessment: Assessment, can_check_visuals: bool) -> str:
    text = (
        f"Assistant {name}'s answer addresses {assessment.requirements_met} of "
        f"{assessment.requirements_total} requirements and runs to {assessment.word_count} words."
    )
    if not can_check_visuals:
        text += " Its visual details cannot be checked here."
    elif assessment.right_colours and assessment.wrong_colours:
        text += (
            f" It correctly mentions {join_words(assessment.right_colours)}, but also "
            f"{join_words(assessment.wrong_colours)}, which does not appear in the image."
        )
    elif assessment.right_colours:
        text += f" It correctly mentions {join_words(assessment.right_colours)}."
    elif assessment.wrong_colours:
        wrong = join_words(assessment.wrong_colours)
        text += f" It mentions {wrong}, which does not appear in the image."
    else:
        text += " It says little about what the image actually shows."
    return text


def verdict_from_difference(difference: float) -> str:
    """Map score(A) - score(B) to a verdict."""
    if difference > CLEAR_MARGIN:
        return "A>>B"
    if difference > TIE_MARGIN:
        return "A>B"
    if difference >= -TIE_MARGIN:
        return "A=B"
    if difference >= -CLEAR_MARGIN:
        return "B>A"
    return "B>>A"


_COMPARISON = {
    "A>>B": "Assistant A is clearly the stronger answer.",
    "A>B": "Assistant A is somewhat better overall.",
    "A=B": "The differences between the two answers are minimal.",
    "B>A": "Assistant B is somewhat better overall.",
    "B>>A": "Assistant B is clearly the stronger answer.",
}

_MALFORMED_ENDINGS = (
    "Both answers have their merits, and the choice depends on the reader.",
    "Final Verdict is: [[A>>>B]]",
    "Final Verdict is: Assistant B, narrowly.",
    "Final Verdict is: [[VERDICT]]",
)


def pairwise_judgment(request: SimRequest) -> str:
    rng = request.rng
    prompt = request.last_user_text
    task = tagged_section(prompt, TASK_TAG)
    criteria = tagged_section(prompt, CRITERIA_TAG)
    true_colours = _true_colours(request, prompt)
    answer_a, answer_b = tagged_section(prompt, ANSWER_A_TAG), tagged_section(prompt, ANSWER_B_TAG)
    assessment_a = assess(answer_a, task, criteria, true_colours)
    assessment_b = assess(answer_b, task, criteria, true_colours)

    difference = assessment_a.score - assessment_b.score + rng.gauss(0.0, NOISE_SD)
    difference += house_style.favour(request, answer_a) - house_style.favour(request, answer_b)
    verdict = verdict_from_difference(difference)
    if rng.random() < request.setting("position_bias"):
        verdict = VERDICT_SCALE[max(0, VERDICT_SCALE.index(verdict) - 1)]

    can_check = bool(true_colours)
    evaluation = "\n\n".join(
        [
            _describe("A", assessment_a, can_check),
            _describe("B", assessment_b, can_check),
        ]
    )
    if rng.random() < request.setting("malformed_rate"):
        return f"{evaluation}\n\n{rng.choice(_MALFORMED_ENDINGS)}"
    final_line = f"Final Verdict is: [[{verdict}]]"
    if rng.random() < 0.15:
        final_line = f"**{final_line}**"  # judges often bold the verdict
    return f"{evaluation}\n\nComparison: {_COMPARISON[verdict]}\n\n{final_line}"


def _visual_score(answer: str, true_colours: list[str]) -> float:
    """0-10: each true colour is an equal share of 10 points; each wrong one costs half a share."""
    mentioned = colour_words(answer)
    right = sum(colour in true_colours for colour in mentioned)
    wrong = len(mentioned) - right
    fraction = max(0.0, min(1.0, (right - 0.5 * wrong) / len(true_colours)))
    return round(fraction * 20) / 2  # to the nearest 0.5


def _aspect_score(answer: str, criteria: str) -> float:
    """0-10 by the rubric where no colour can be checked: each aspect (a line of the criteria) is worth an equal
    share of 10 points, earned by the share of its content words the answer uses. An answer that says nothing
    about the picture earns no aspect, however long or well formatted it is."""
    aspects = [wanted for wanted in (content_words(line) for line in criteria.splitlines()) if wanted]
    if not aspects:
        return 0.0
    present = set(content_words(answer))
    fraction = sum(_share_present(wanted, present) for wanted in aspects) / len(aspects)
    return round(fraction * 20) / 2  # to the nearest 0.5


_MALFORMED_SCORES = (
    "Both answers are broadly faithful to the image, with small slips.",
    "Response A Visual Factuality Score: 12/10\nResponse B Visual Factuality Score: -1/10",
    "Response A Visual Factuality Score: N/A\nResponse B Visual Factuality Score: N/A",
)


def vfs_judgment(request: SimRequest) -> str:
    rng = request.rng
    prompt = request.last_user_text
    # The criteria are the reference; the judge's own eyes are the fallback.
    true_colours = _stated_colours(prompt) or colours_in_images(request.image_urls)
    answer_a = tagged_section(prompt, ANSWER_A_TAG)
    answer_b = tagged_section(prompt, ANSWER_B_TAG)
    if true_colours:
        score_a = _visual_score(answer_a, true_colours)
        score_b = _visual_score(answer_b, true_colours)
        reason = f"The criteria call for {join_words(true_colours)}."
    else:  # no colour to check: each answer earns the aspects it addresses (METHODS §1.4), never a free middle
        criteria = tagged_section(prompt, VISUAL_CRITERIA_TAG)
        score_a, score_b = _aspect_score(answer_a, criteria), _aspect_score(answer_b, criteria)
        reason = "No colour in the criteria can be checked, so each answer earns the aspects it addresses."

    lines = [
        reason,
        f"Response A mentions {join_words(colour_words(answer_a)) or 'no colours'}.",
        f"Response B mentions {join_words(colour_words(answer_b)) or 'no colours'}.",
    ]
    if rng.random() < request.setting("malformed_rate"):
        lines.append(rng.choice(_MALFORMED_SCORES))
    else:
        lines.append(f"Response A Visual Factuality Score: {score_a:g}/10")
        lines.append(f"Response B Visual Factuality Score: {score_b:g}/10")
    return "\n".join(lines)
