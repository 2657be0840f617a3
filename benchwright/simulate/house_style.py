"""Families' house styles: how a simulated judge recognises answers of its own family, for a known
self-preference (benchwright/families.py measures it; docs/judge_families.md).

Real judges favour their own family's answers because they recognise their style (Panickssery et al. 2024).
The simulator makes that recognition explicit and exact:

- a simulated *writer* whose params name a ``family`` (the older way of giving a family, which
  ``benchwright.families.derive_family`` reads, so the self-preference analysis sees the same family) ends each
  answer with its family's mark, a last line ``— <family>``; a writer without one writes as before. The
  shared prose writer signs (``signed``), and so does each benchmark's own writer that calls it (writers whose
  answers are checked word by word do not);
- a simulated *judge* with a ``self_preference`` param (default 0) and a ``family`` param adds that amount to
  its assessment of an answer that ends with its own family's mark, on its benchmark's scale (each benchmark's
  simulated judge says where: ``favour`` is the whole rule). Other judges see the mark as one more short line,
  the same for all of them, so it cancels out of a judge's gap to the others' consensus.

The registry's ``family:`` field is not a param: a simulated model never sees it, so a planted
self-preference needs ``params: {family: ...}`` on both the judge and the candidate.
"""

from __future__ import annotations

from .request import SimRequest


def family(request: SimRequest) -> str | None:
    """The family the request's params name (lower case, as derive_family gives it), or None."""
    value = request.params.get("family")
    return str(value).lower() if value else None


def mark(family_name: str) -> str:
    """The last line of an answer written in `family_name`'s house style."""
    return f"— {family_name}"


def signed(request: SimRequest, answer: str) -> str:
    """`answer` in the writer's house style: its family's mark appended when its params name a family."""
    name = family(request)
    return f"{answer}\n\n{mark(name)}" if name else answer


def favour(request: SimRequest, answer: str) -> float:
    """What the judge adds to its assessment of `answer`: its self-preference when the answer ends with the
    mark of the judge's own family, else 0 (always 0 for a judge without both params)."""
    amount = request.setting("self_preference")  # at most ±10: a whole 1-10 scale (request.SETTING_RANGES)
    name = family(request)
    if not amount or not name:
        return 0.0
    lines = (answer or "").strip().splitlines()
    return amount if lines and lines[-1].strip() == mark(name) else 0.0
