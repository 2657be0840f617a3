"""Judge-format strings inside model answers: the mark of a candidate trying to speak for its judge.

An answer that contains a verdict token, a Visual Factuality Score line, a score dict or a ``Score: x``
line gains nothing from it any more (the parsers skip echoes, ``benchwright.judging``), but writing one
is still worth knowing: the ``answer_injection`` check reports it per model and the leaderboards flag
the model (``flagged_injection``). The formats are the parsers' own patterns, imported from the
benchmark modules, so that what is flagged is exactly what a parser could have misread.
"""

from __future__ import annotations

import unicodedata

from benchwright import pairwise
from benchwright.gap import scoring
from benchwright.mmmt_if import autorater
from benchwright.urs import parse
from benchwright.creation import vfs as verdicts

PAIRWISE_VERDICT = "pairwise_verdict"
VFS_LINE = "vfs_line"
URS_SCORE_DICT = "urs_score_dict"
AUTORATER_DICT = "autorater_dict"
SCORE_LINE = "score_line"
KINDS = (PAIRWISE_VERDICT, VFS_LINE, URS_SCORE_DICT, AUTORATER_DICT, SCORE_LINE)


def kinds_in(answer: str | None) -> list[str]:
    """The judge formats found in ``answer``, in the order of ``KINDS`` (empty when none).

    A format counts when its parser would read a value from it, so prose that merely mentions a score
    or a verdict, markdown lists and ordinary dicts are not flagged.
    """
    if not isinstance(answer, str) or not answer.strip():
        return []
    found = set()
    unescaped = answer.replace("\\[", "[").replace("\\]", "]")
    if any(pairwise.parse_pairwise(f"[[{m.group(1)}]]") for m in pairwise.BRACKET_TOKEN.finditer(unescaped)):
        found.add(PAIRWISE_VERDICT)
    plain = verdicts.without_decoration(answer)
    if any(pattern.search(plain) for pattern in verdicts.VFS_PATTERNS.values()):
        found.add(VFS_LINE)
    normalized = unicodedata.normalize("NFKC", answer).translate(parse.QUOTES)
    if any(parse.read_scores(match.group(0))[0] for match in parse.DICT.finditer(normalized)):
        found.add(URS_SCORE_DICT)
    if any(autorater.names_a_criterion(block) for block in autorater.BRACES.findall(answer)):
        found.add(AUTORATER_DICT)
    # Only a 'Score: x' the GAP parser would accept (x in [0, 1]): prose such as 'Credit score: 720' is
    # not the judge's format and could never be credited.
    if any(scoring.parse_score(m.group(0))[0] is not None for m in scoring.SCORE_LINE.finditer(answer)):
        found.add(SCORE_LINE)
    return [kind for kind in KINDS if kind in found]


def kinds_text(answer: str | None) -> str | None:
    """``kinds_in`` as the comma-separated text stored with each generation (None when clean)."""
    return ",".join(kinds_in(answer)) or None
