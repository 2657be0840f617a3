"""Parsing of judge outputs for the Creation benchmark (METHODS §1.3 and §1.4).

Judges are asked to end with ``Final Verdict is: [[VERDICT]]`` (pairwise) or with two
``Response A/B Visual Factuality Score: <x>/10`` lines (unitary). Real judges wrap these in
markdown or LaTeX, add spaces, keep writing afterwards, or quote an example verdict before
their own. The parsers below accept those variants and return None for anything else: a
failure is counted, never guessed.
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


_SCORE_NUMBER = r"(-?\d+(?:\.\d+)?)"


def _score_pattern(side: str) -> re.Pattern[str]:
    return re.compile(
        rf"Response\s+{side}\s+Visual\s+Factuality\s+Score\s*[:：]\s*{_SCORE_NUMBER}"
        r"\s*(?:/|out\s+of)\s*10(?![\d.])",
        re.IGNORECASE,
    )


VFS_PATTERNS = {"A": _score_pattern("A"), "B": _score_pattern("B")}


def without_decoration(text: str) -> str:
    """Markdown bold/italics, code ticks and LaTeX dollars removed: how score lines are read."""
    return re.sub(r"[*_$`]", "", text)


def _decoration_blanked(text: str) -> str:
    """``without_decoration`` with offsets kept (each mark becomes a space), so that matches found in it
    can be judged against the quotation and code marks of the original text."""
    return re.sub(r"[*_$`]", " ", text)


def _last_own_score(text: str, side: str, shown_texts: Shown) -> tuple[float | None, str | None]:
    """The side's score from the judge's last own line, or the problem."""
    matches = list(VFS_PATTERNS[side].finditer(_decoration_blanked(text)))
    match, problem = judging.last_own(text, matches, shown_texts)
    if match is None:
        return None, problem or f"no_score_{side.lower()}"
    value = float(match.group(1))
    if not 0.0 <= value <= 10.0:
        return None, f"score_{side.lower()}_out_of_range"
    return value, None


def vfs_scores(text: str | None, shown: Shown | Iterable[str | None] | None = None
               ) -> tuple[float | None, float | None, str | None]:
    """The two Visual Factuality Scores and the parse problem: (score_a, score_b, problem).

    The last occurrence of each line wins (earlier ones may be a restated format). Markdown
    bold/italics and LaTeX dollar signs are ignored, ``7.5/10``, ``7 / 10`` and ``7 out of 10``
    are accepted. A side whose line is missing, or whose value lies outside [0, 10], is None.
    Only the judge's own lines count (``benchwright.judging``): quoted lines are skipped, and so
    is a line copied from a text the judge was shown (``shown``: reference and candidate).
    The problem names the candidate's side (B) first, since B's score is the VFS.
    """
    if not text:
        return None, None, "empty_output"
    shown_texts = judging.shown(shown)
    score_a, problem_a = _last_own_score(text, "A", shown_texts)
    score_b, problem_b = _last_own_score(text, "B", shown_texts)
    return score_a, score_b, problem_b or problem_a


def parse_vfs(text: str | None, shown: Shown | Iterable[str | None] | None = None) -> tuple[float | None, float | None]:
    """(score_a, score_b): ``vfs_scores`` without the problem."""
    score_a, score_b, _ = vfs_scores(text, shown)
    return score_a, score_b
