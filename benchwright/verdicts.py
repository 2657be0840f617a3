"""Parsing of judge outputs for the Creation benchmark (METHODS §1.3 and §1.4).

Judges are asked to end with ``Final Verdict is: [[VERDICT]]`` (pairwise) or with two
``Response A/B Visual Factuality Score: <x>/10`` lines (unitary). Real judges wrap these in
markdown or LaTeX, add spaces, keep writing afterwards, or quote an example verdict before
their own. The parsers below accept those variants and return None for anything else: a
failure is counted, never guessed.
"""

from __future__ import annotations

import re

CANONICAL_VERDICTS = ("A>>B", "A>B", "A=B", "B>A", "B>>A")

# A double-bracketed token such as [[B>A]] or [[ B > A ]]; its content is checked separately,
# so that a garbled final token like [[A>>>B]] is a failure rather than skipped over.
_BRACKET_TOKEN = re.compile(r"\[\[([^\[\]\n]{0,40})\]\]")
_VERDICT_BODY = re.compile(r"([AB])(>>|>|==|=|<<|<)([AB])")
_FINAL_VERDICT_PHRASE = re.compile(r"final\s+verdict", re.IGNORECASE)

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


# What a judge quotes is not what it decides: one-line double-quoted spans (straight or curly) and
# markdown blockquote lines. A quoted span that is nothing but a verdict token is kept, since some
# judges put their own verdict in quotes.
_QUOTED_SPAN = re.compile(r'"[^"\n]*"|\u201c[^\u201d\n]*\u201d')
_BLOCKQUOTE_LINE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_BARE_TOKEN = re.compile(r'^["\u201c]\s*\[\[[^\[\]\n]{0,40}\]\]\s*["\u201d]$')


def without_quotations(text: str) -> str:
    """The judge's own words: quoted spans and blockquotes blanked out (offsets kept)."""
    def blank(match: re.Match[str]) -> str:
        return match.group(0) if _BARE_TOKEN.match(match.group(0)) else " " * len(match.group(0))

    return _QUOTED_SPAN.sub(blank, _BLOCKQUOTE_LINE.sub(lambda m: " " * len(m.group(0)), text))


def parse_pairwise(text: str | None) -> str | None:
    """Return the judge's final pairwise verdict in canonical form, or None.

    Which token counts as final:
    - if the text says "final verdict" (any case) and a [[...]] token follows the last such
      phrase, the first token after that phrase is the verdict;
    - otherwise the last [[...]] token in the text is the verdict.
    The chosen token must read as one of A>>B, A>B, A=B, B>A, B>>A (spaces, ``*``, ``$`` and
    backticks inside the brackets are ignored; ``<`` and ``<<`` are read right to left, ``==``
    is a tie). If it does not, the result is None even when an earlier token was valid:
    an earlier token is usually a quoted example, so falling back to it would be a guess.
    Verdicts and phrases the judge quotes (an answer that writes its own "Final Verdict is:
    [[B>>A]]") are not the judge's: see ``without_quotations``.
    """
    if not text:
        return None
    # Markdown sometimes escapes brackets: \[\[B>A\]\].
    cleaned = without_quotations(text.replace("\\[", "[").replace("\\]", "]"))
    tokens = list(_BRACKET_TOKEN.finditer(cleaned))
    if not tokens:
        return None

    chosen = tokens[-1]
    phrases = list(_FINAL_VERDICT_PHRASE.finditer(cleaned))
    if phrases:
        after_last_phrase = [t for t in tokens if t.start() >= phrases[-1].end()]
        if after_last_phrase:
            chosen = after_last_phrase[0]
    return _canonical_from_token(chosen.group(1))


_SCORE_NUMBER = r"(-?\d+(?:\.\d+)?)"


def _score_pattern(side: str) -> re.Pattern[str]:
    return re.compile(
        rf"Response\s+{side}\s+Visual\s+Factuality\s+Score\s*[:：]\s*{_SCORE_NUMBER}"
        r"\s*(?:/|out\s+of)\s*10(?![\d.])",
        re.IGNORECASE,
    )


_VFS_PATTERNS = {"A": _score_pattern("A"), "B": _score_pattern("B")}


def _last_score(text: str, side: str) -> float | None:
    matches = _VFS_PATTERNS[side].findall(text)
    if not matches:
        return None
    value = float(matches[-1])
    if not 0.0 <= value <= 10.0:
        return None
    return value


def parse_vfs(text: str | None) -> tuple[float | None, float | None]:
    """Parse the two Visual Factuality Score lines; returns (score_a, score_b).

    The last occurrence of each line wins (earlier ones may be a restated format). Markdown
    bold/italics and LaTeX dollar signs are ignored, ``7.5/10``, ``7 / 10`` and ``7 out of 10``
    are accepted. A side whose line is missing, or whose value lies outside [0, 10], is None.
    Score lines the judge quotes (from an answer) do not count: see ``without_quotations``.
    """
    if not text:
        return None, None
    cleaned = re.sub(r"[*_$`]", "", without_quotations(text))
    return _last_score(cleaned, "A"), _last_score(cleaned, "B")
