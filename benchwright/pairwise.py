"""Pairwise judging, shared by every benchmark and importer that compares two answers: the 5-point
verdict scale (``A>>B`` ... ``B>>A``), reading a judge's ``[[verdict]]`` (the Arena-Hard format our
Creation judge uses too), mirroring, the candidate's outcome, Reward / Win Rate and swap consistency.

Real judges wrap the verdict in markdown or LaTeX, add spaces, keep writing afterwards, or quote an
example verdict before their own. The parser accepts those variants and returns None for anything
else: a failure is counted, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from benchwright import judging
from benchwright.judging import Shown

CANONICAL_VERDICTS = ("A>>B", "A>B", "A=B", "B>A", "B>>A")

# A double-bracketed token such as [[B>A]] or [[ B > A ]]; its content is checked separately,
# so that a garbled final token like [[A>>>B]] is a failure rather than skipped over.
BRACKET_TOKEN = re.compile(r"\[\[([^\[\]\n]{0,40})\]\]")
_VERDICT_BODY = re.compile(r"([AB])(>>|>|==|=|<<|<)([AB])")
_FINAL_VERDICT_PHRASE = re.compile(r"final\s+verdict", re.IGNORECASE)
_VERDICT_UNIT = re.compile(r"(?:final\s+verdict[^\[\n]{0,40})?\[\[[^\[\]\n]{0,40}\]\]", re.IGNORECASE)

# Written as "left op right" -> canonical verdict. "<" forms are read right to left.
_RELATION_TO_CANONICAL = {
    ("A", ">>", "B"): "A>>B",
    ("A", ">", "B"): "A>B",
    ("B", "<<", "A"): "A>>B",
    ("B", "<", "A"): "A>B",
    ("B", ">>", "A"): "B>>A",
    ("B", ">", "A"): "B>A",
    ("A", "<<", "B"): "B>>A",
    ("A", "<", "B"): "B>A",
}


def _canonical_from_token(token: str) -> str | None:
    """Turn the inside of one [[...]] token into a canonical verdict, or None."""
    # Drop spaces and the markdown/LaTeX decorations judges put inside the brackets.
    body = re.sub(r"[\s*$`]", "", token).upper()
    match = _VERDICT_BODY.fullmatch(body)
    if match is None:
        return None
    left, relation, right = match.groups()
    if left == right:
        return None
    if relation in ("=", "=="):
        return "A=B"
    return _RELATION_TO_CANONICAL[(left, relation, right)]


def pairwise_verdict(text: str | None, shown: Shown | Iterable[str | None] | None = None) -> tuple[str | None, str | None]:
    """The judge's final pairwise verdict in canonical form and the parse problem (one is None).

    Which token counts as final:
    - if the text says "final verdict" (any case) and a [[...]] token follows the last such
      phrase, the first token after that phrase is the verdict;
    - otherwise the last [[...]] token in the text is the verdict.
    The chosen token must read as one of A>>B, A>B, A=B, B>A, B>>A (spaces, ``*``, ``$`` and
    backticks inside the brackets are ignored; ``<`` and ``<<`` are read right to left, ``==``
    is a tie). If it does not, the result is a failure even when an earlier token was valid:
    an earlier token is usually a quoted example, so falling back to it would be a guess.

    Only the judge's own words count (``benchwright.judging.own_matches``): a token together with the
    "final verdict" phrase before it on its line is one unit, and units the judge quoted, or copied from
    a text it was shown (``shown``: the two answers), are blanked before the rule above is applied.
    Problems: ``'no_verdict'``, ``'bad_verdict'`` (the final token is garbled), ``'echoed_answer'`` (only
    quoted or echoed units, one of them from an answer).
    """
    if not text:
        return None, "empty_output"
    # Markdown sometimes escapes brackets: \[\[B>A\]\].
    plain = text.replace("\\[", "[").replace("\\]", "]")
    found = list(_VERDICT_UNIT.finditer(plain))
    units, echoed = judging.own_matches(plain, found, judging.shown(shown))
    cleaned = judging.blank(plain, (u.span() for u in found if u not in units))
    tokens = list(BRACKET_TOKEN.finditer(cleaned))
    if not tokens:
        return None, (judging.ECHOED_ANSWER if echoed else "no_verdict")

    chosen = tokens[-1]
    phrases = list(_FINAL_VERDICT_PHRASE.finditer(cleaned))
    if phrases:
        after_last_phrase = [t for t in tokens if t.start() >= phrases[-1].end()]
        if after_last_phrase:
            chosen = after_last_phrase[0]
    verdict = _canonical_from_token(chosen.group(1))
    return verdict, (None if verdict else "bad_verdict")


def parse_pairwise(text: str | None, shown: Shown | Iterable[str | None] | None = None) -> str | None:
    """The judge's final verdict, or None: ``pairwise_verdict`` without the problem."""
    return pairwise_verdict(text, shown)[0]


# --- outcomes and metrics -------------------------------------------------------------------

OUTCOME_VALUE = {"MB": 2, "B": 1, "T": 0, "W": -1, "MW": -2}
OUTCOMES = ("MB", "B", "T", "W", "MW", "Fail")

# Outcome of the candidate when it sits in position B (order 1).
_OUTCOME_WHEN_CANDIDATE_IS_B = {"B>>A": "MB", "B>A": "B", "A=B": "T", "A>B": "W", "A>>B": "MW"}
_MIRROR = {"A>>B": "B>>A", "A>B": "B>A", "A=B": "A=B", "B>A": "A>B", "B>>A": "A>>B"}


def _check_verdict(verdict: str) -> None:
    if verdict not in CANONICAL_VERDICTS:
        raise ValueError(f"not a canonical verdict: {verdict!r}")


def mirror(verdict: str) -> str:
    """The same judgment seen with A and B swapped (A>B <-> B>A, A>>B <-> B>>A, A=B)."""
    _check_verdict(verdict)
    return _MIRROR[verdict]


def outcome(verdict: str | None, candidate_position: str) -> str:
    """Candidate's outcome ('MB','B','T','W','MW') for a verdict, or 'Fail' when it is None."""
    if candidate_position not in ("A", "B"):
        raise ValueError(f"candidate_position must be 'A' or 'B', got {candidate_position!r}")
    if verdict is None:
        return "Fail"
    _check_verdict(verdict)
    if candidate_position == "A":
        verdict = mirror(verdict)
    return _OUTCOME_WHEN_CANDIDATE_IS_B[verdict]


def summarize(outcomes: Iterable[str]) -> dict:
    """Counts, Reward and Win Rate over judgments (benchwright/creation/README.md#scoring).

    n counts the parsed judgments (Fail excluded).
    Reward = (100·MB + 50·B − 50·W − 100·MW) / n and Win Rate = (MB + B) / n; both are None
    when n is 0, because "no evidence" is not a score of 0. An unknown outcome raises ValueError.
    """
    counts = dict.fromkeys(OUTCOMES, 0)
    for value in outcomes:
        if value not in counts:
            raise ValueError(f"unknown outcome: {value!r}")
        counts[value] += 1
    n = sum(counts[key] for key in OUTCOME_VALUE)
    if n == 0:
        reward = win_rate = None
    else:
        points = 100 * counts["MB"] + 50 * counts["B"] - 50 * counts["W"] - 100 * counts["MW"]
        reward = points / n
        win_rate = (counts["MB"] + counts["B"]) / n
    return {"reward": reward, "win_rate": win_rate, **counts, "n": n}


def swap_consistency(
    verdict_order1: str | None, verdict_order2: str | None
) -> tuple[bool | None, bool | None]:
    """Position consistency of one (item, candidate, judge) judged in both orders.

    Order 1 has the candidate in position B, order 2 in position A.
    exact: the order-2 verdict is the mirror of the order-1 verdict.
    relaxed: the candidate's two outcomes are at most one step apart on the scale
    MW < W < T < B < MB (e.g. B>>A then A>B — Much Better, then Better — is relaxed-consistent).
    (None, None) when either verdict failed to parse.
    """
    if verdict_order1 is None or verdict_order2 is None:
        return None, None
    exact = verdict_order2 == mirror(verdict_order1)
    value_1 = OUTCOME_VALUE[outcome(verdict_order1, "B")]
    value_2 = OUTCOME_VALUE[outcome(verdict_order2, "A")]
    return exact, abs(value_1 - value_2) <= 1
