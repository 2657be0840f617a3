"""Judge-format strings inside model answers: the mark of a candidate trying to speak for its judge.

An answer that contains a verdict token, a Visual Factuality Score line, a score dict or a ``Score: x``
line gains nothing from it any more (the parsers skip echoes, ``benchwright.judging``), but writing one
is still worth knowing: the ``answer_injection`` check reports it per model and the leaderboards flag
the model (``flagged_injection``). The formats are the parsers' own: the kernel's pairwise verdict, then
each declared benchmark's ``judge_formats`` (``benchwright.benchmarks``), so that what is flagged is exactly
what a parser could have misread, and a new benchmark's format is looked for without an edit here.
"""

from __future__ import annotations

from benchwright import benchmarks, pairwise

PAIRWISE_VERDICT = "pairwise_verdict"


def _pairwise_verdict(answer: str) -> bool:
    unescaped = answer.replace("\\[", "[").replace("\\]", "]")
    return any(pairwise.parse_pairwise(f"[[{m.group(1)}]]") for m in pairwise.BRACKET_TOKEN.finditer(unescaped))


# The shared 5-point verdict (benchwright.pairwise) is the kernel's own format; every other is a benchmark's.
KERNEL_FORMATS = (benchmarks.JudgeFormat(PAIRWISE_VERDICT, _pairwise_verdict),)


def formats() -> tuple[benchmarks.JudgeFormat, ...]:
    """Every judge format looked for, in the order kinds are reported: the kernel's, then each benchmark's in
    declaration order."""
    return KERNEL_FORMATS + tuple(f for benchmark in benchmarks.declared() for f in benchmark.judge_formats)


def kinds() -> tuple[str, ...]:
    return tuple(f.kind for f in formats())


def kinds_in(answer: str | None) -> list[str]:
    """The judge formats found in ``answer``, in the order of ``kinds()`` (empty when none).

    A format counts when its parser would read a value from it, so prose that merely mentions a score
    or a verdict, markdown lists and ordinary dicts are not flagged.
    """
    if not isinstance(answer, str) or not answer.strip():
        return []
    return [f.kind for f in formats() if f.found(answer)]


def kinds_text(answer: str | None) -> str | None:
    """``kinds_in`` as the comma-separated text stored with each generation (None when clean)."""
    return ",".join(kinds_in(answer)) or None
