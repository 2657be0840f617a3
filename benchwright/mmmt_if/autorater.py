"""MMMT-IF autorater (benchwright/mmmt_if/README.md#autorater-and-preferences): reading the judge's dict of 8 criteria; a missing key or an out-of-range
score is a parse failure with its reason, never a low score."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass


from benchwright import judging
from benchwright.judging import Shown
from benchwright.mmmt_if.prompts import AUTORATER_KEYS


def _key_form(name: str) -> str:
    return re.sub(r"[^a-z]+", " ", name.lower()).strip()


_KEY_ALIASES = {_key_form(k): k for k in AUTORATER_KEYS}
_KEY_ALIASES.update({"overall": "Overall Quality", "overall score": "Overall Quality",
                     "image relationship": "Image Relationship Understanding"})
BRACES = re.compile(r"\{[^{}]*\}", re.DOTALL)
_PAIR = re.compile(r"""["']?([A-Za-z][A-Za-z _-]*?)["']?\s*[:=]\s*["']?(-?\d+(?:\.\d+)?)\s*(?:/\s*10)?["']?""")


@dataclass(frozen=True)
class AutoraterParse:
    scores: dict[str, float] | None  # all 8 criteria, or None when the output did not parse
    missing: tuple[str, ...] = ()
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.scores is not None


def _pairs(block: str) -> dict[str, object]:
    try:
        value = ast.literal_eval(block)
        if isinstance(value, dict):
            return {str(k): v for k, v in value.items()}
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    return {key: number for key, number in _PAIR.findall(block)}


def _score(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        match = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*10)?\s*", value)
        if not match:
            return None
        number = float(match.group(1))
    else:
        return None
    return number if math.isfinite(number) else None


def _read_block(block: str) -> tuple[dict[str, float], list[str]]:
    """Known criteria with usable scores, and the problems found."""
    scores, problems = {}, []
    for key, value in _pairs(block).items():
        name = _KEY_ALIASES.get(_key_form(key))
        if name is None:
            continue
        number = _score(value)
        if number is None or not 1.0 <= number <= 10.0:
            problems.append(f"{name} = {value!r} is not a score from 1 to 10")
            continue
        scores[name] = number
    return scores, problems


def names_a_criterion(block: str) -> bool:
    """Whether a ``{...}`` block gives a score to at least one autorater criterion."""
    scores, problems = _read_block(block)
    return bool(scores or problems)


def parse_autorater(text: str | None, shown: Shown | Iterable[str | None] | None = None) -> AutoraterParse:
    """The 8 scores from an autorater output, or a parse failure saying what is wrong.

    The judge's answer is its last ``{...}`` block that names at least one criterion; it must hold
    all 8 with scores from 1 to 10, else the output is a failure that names the missing keys or bad
    values. An earlier complete block never stands in for a broken last one: an earlier block is an
    example or a quote, and taking it would be a guess. A block that also occurs in a text the judge
    was shown (``shown``: the rated response and the chat's earlier answers) is an echo, not the
    judge's (``benchwright.judging``); only echoed blocks is the problem ``'echoed_answer'``.
    Keys are matched ignoring case, spaces, underscores and quotes ("overall score" also means
    Overall Quality).
    """
    if not isinstance(text, str) or not text.strip():
        return AutoraterParse(None, AUTORATER_KEYS, "empty output")
    score_blocks = [m for m in BRACES.finditer(text) if names_a_criterion(m.group(0))]
    if not score_blocks:
        return AutoraterParse(None, AUTORATER_KEYS, "no {...} dict in the output" if "{" not in text
                              else "no dict names a criterion")
    chosen, echoed = judging.last_own(text, score_blocks, judging.shown(shown))
    if chosen is None:
        return AutoraterParse(None, AUTORATER_KEYS, echoed)
    scores, problems = _read_block(chosen.group(0))
    if len(scores) == len(AUTORATER_KEYS) and not problems:
        return AutoraterParse({k: scores[k] for k in AUTORATER_KEYS})
    missing = tuple(k for k in AUTORATER_KEYS if k not in scores)
    reasons = list(problems)
    absent = [k for k in missing if not any(p.startswith(k) for p in problems)]
    if absent:
        reasons.append("missing " + ", ".join(absent))
    return AutoraterParse(None, missing, "; ".join(reasons))
