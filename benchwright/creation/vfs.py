"""Reading the Creation judge's unitary Visual Factuality Scores (benchwright/creation/README.md#visual-factuality-score): two
``Response A/B Visual Factuality Score: <x>/10`` lines. The pairwise verdict is read by
``benchwright.pairwise``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from benchwright import judging
from benchwright.judging import Shown

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
