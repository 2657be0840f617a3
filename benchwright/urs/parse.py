"""Reading a URS judge's dict of integer scores: the judge's own last dict, never an echo of what it was shown;
anything else is a counted parse failure with its reason."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable


from benchwright import judging
from benchwright.judging import Shown
from benchwright.urs.intents import CRITERIA, FINAL, SCORE_MAX, SCORE_MIN


def _key_form(text: str) -> str:
    """Compare keys without case, spaces, quotes or punctuation ('User_Satisfaction' = 'user satisfaction')."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


_KEYS: dict[str, str] = {}
for _criterion, (_zh_name, _, _) in CRITERIA.items():
    _KEYS[_key_form(_criterion)] = _criterion
    _KEYS[_key_form(_zh_name)] = _criterion
for _alias in ("Final Score", "Final", "Overall Score", "综合得分", "综合评分", "最终得分"):
    _KEYS[_key_form(_alias)] = FINAL

# Quotes NFKC leaves alone; everything else full-width (：，｛｝＇＂ digits) NFKC turns to ASCII.
QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "「": '"', "」": '"', "『": '"', "』": '"'})
DICT = re.compile(r"\{[^{}]*\}")
_ENTRY_SEPARATORS = re.compile(r"[,;\n、]")
_INTEGER = re.compile(r"""^(['"]?)\s*(-?\d+)\s*\1$""")


def _known_key(raw_key: str) -> str | None:
    key = raw_key.strip().strip("'\"`*").strip()
    found = _KEYS.get(_key_form(key))
    if found is None:
        # "事实正确性(Factuality)" or "Factuality (事实正确性)": either half may name it.
        for half in re.split(r"[()（）]", key):
            if half.strip() and _KEYS.get(_key_form(half)):
                return _KEYS[_key_form(half)]
    return found


def _read_dict(body: str) -> tuple[dict[str, int] | None, bool]:
    """(scores or None when unreadable, whether any known key appears)."""
    scores: dict[str, int] = {}
    named_a_key = False
    readable = True
    for entry in _ENTRY_SEPARATORS.split(body):
        if not entry.strip():
            continue
        key, colon, value = entry.partition(":")
        name = _known_key(key) if colon else None
        named_a_key = named_a_key or name is not None
        match = _INTEGER.match(value.strip()) if colon else None
        if name is None or match is None:
            readable = False
            continue
        number = int(match.group(2))
        if not SCORE_MIN <= number <= SCORE_MAX or scores.get(name, number) != number:
            readable = False
            continue
        scores[name] = number
    return (scores if readable else None), named_a_key


def read_scores(text: str | None, shown: Shown | Iterable[str | None] | None = None
                ) -> tuple[dict[str, int] | None, str | None]:
    """The judge's scores and the parse problem (one of them is None).

    Scores: {criterion (English name): int, ..., 'final': int}. Reads English and Chinese dicts
    (``'Final Score'`` / ``'综合得分'``, Chinese criterion names), full-width punctuation, single or
    double quotes and text around the dict. The judge's last dict that names a known key is its
    answer; a dict that also occurs in a text the judge was shown (``shown``: the reference and the
    answer) is an echo, not the judge's (``benchwright.judging``). See the module docstring for what
    counts as a failure.
    """
    if not text:
        return None, "empty_output"
    shown_texts = judging.shown(shown)
    normalized = unicodedata.normalize("NFKC", text).translate(QUOTES)
    # Dicts that name a known key are score dicts; the judge's answer is its last own one.
    score_dicts = [m for m in DICT.finditer(normalized) if _read_dict(m.group(0)[1:-1])[1]]
    chosen, problem = judging.last_own(normalized, score_dicts, shown_texts)
    if chosen is None:
        return None, problem or "no_dict"
    scores, _ = _read_dict(chosen.group(0)[1:-1])
    if scores is None:
        return None, "unreadable_dict"
    if FINAL not in scores:
        return None, "no_final_score"
    return scores, None


def parse_scores(text: str | None, shown: Shown | Iterable[str | None] | None = None) -> dict[str, int] | None:
    """The judge's scores, or None on failure: ``read_scores`` without the problem."""
    return read_scores(text, shown)[0]
