"""What one run of the main job covers: some benchmarks, models and judges, and maybe only the first N items.

`python3.11 dev.py run --benchmark urs --model gpt-4o --judge sim-fair-judge --limit 5` builds a `Scope`;
the main job (scripts/orchestrate.py `materialize_everything`) materializes only the asset partitions inside
it. Names are checked against the registry and the benchmark list before anything runs: a typo is refused
with the nearest name ("did you mean ...?"), never silently matched to nothing.

A limited run (`limit`: the first N items of each benchmark, a smoke test as with `lm_eval --limit`) writes to
a home of its own, `<home>/limited/<N>/` (warehouse, snapshot, Dagster runs), so its partial figures can never
mix with the full results; it shares the full home's response cache, so the next full run gets the answers it
paid for from the cache instead of calling again.

`--limit anchors` runs only each benchmark's anchor items (README.md#small-anchor-sets: the sets `anchor_sets` chose in
the full home, read from its analyst snapshot) in `<home>/limited/anchors/`, and `anchor_estimates` there gives each
model's estimated full-benchmark score with its interval. Only benchmarks with an anchor set run.

Pure logic: no Dagster here; the asset graph side is in scripts/orchestrate.py.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# Asset name prefixes that a scope selects like a benchmark's, besides the declared benchmarks: `interop` is the
# imports of other evaluations' published judgments (no model calls, nothing to limit), so `--benchmark creation`
# leaves them out too.
KERNEL_AREAS = ("interop",)


def selectable_benchmarks() -> tuple[str, ...]:
    """What `--benchmark` may name: every declared benchmark (benchwright.benchmarks; an asset belongs to one when its
    name starts with `<benchmark>_`, creation_generations, urs_panel_judgments) and the kernel's areas, sorted."""
    from benchwright.benchmarks import declared

    return tuple(sorted({benchmark.name for benchmark in declared()} | set(KERNEL_AREAS)))

LIMITED_FOLDER = "limited"
ANCHORS = "anchors"  # `--limit anchors`: each benchmark's anchor items instead of its first N


class ScopeError(ValueError):
    """A scope option names nothing that exists (or a limit below 1); the message says what would."""


@dataclass(frozen=True)
class Scope:
    """None means every one (of the benchmarks, registered candidates, judges and panels)."""

    benchmarks: tuple[str, ...] | None = None
    models: tuple[str, ...] | None = None
    judges: tuple[str, ...] | None = None
    limit: int | str | None = None  # N, or ANCHORS

    @property
    def anchored(self) -> bool:
        """Whether this is a run on the anchor items (`--limit anchors`)."""
        return self.limit == ANCHORS

    @property
    def narrowed(self) -> bool:
        """Whether the run leaves anything out (a scoped run is not a full run)."""
        return any(value is not None for value in (self.benchmarks, self.models, self.judges, self.limit))

    @property
    def by_entry(self) -> bool:
        """Whether some models or judges are left out: assets that ask every model or judge at once (URS's
        cross-validation grid) would then call outside the scope, so they wait for an unscoped run."""
        return self.models is not None or self.judges is not None

    def covers_benchmark(self, benchmark: str | None) -> bool:
        """`benchmark` is None for an asset of no benchmark (the snapshot, the ledger): always covered."""
        return benchmark is None or self.benchmarks is None or benchmark in self.benchmarks

    def pick(self, kind: str, slugs: Sequence[str]) -> list[str]:
        """Of the registered `slugs` ("models" or "judges", panels included), those inside the scope."""
        chosen = self.models if kind == "models" else self.judges
        return list(slugs) if chosen is None else [slug for slug in slugs if slug in chosen]

    def home(self, full_home: Path) -> Path:
        """Where this run's results go: the full home, or for a limited run a home of its own inside it."""
        return full_home if self.limit is None else limited_home(full_home, self.limit)

    def describe(self) -> str:
        parts = [f"{name}: {', '.join(values)}" for name, values in
                 (("benchmarks", self.benchmarks), ("models", self.models), ("judges", self.judges)) if values]
        if self.anchored:
            parts.append("the anchor items of each benchmark with an anchor set")
        elif self.limit is not None:
            parts.append(f"first {self.limit} items of each benchmark")
        return "; ".join(parts) or "everything"


def limited_home(full_home: Path, limit: int | str) -> Path:
    return full_home / LIMITED_FOLDER / str(limit)


def is_limited_home(folder: Path, limit: int | str) -> bool:
    """Whether `folder` is a limited run's home for this limit (`.../limited/<limit>`): the only place its
    partial results may be written."""
    return Path(folder).parts[-2:] == (LIMITED_FOLDER, str(limit))


def benchmark_of(asset_name: str, benchmarks: Iterable[str] | None = None) -> str | None:
    """The benchmark an asset belongs to by its name's prefix (the longest that fits; of `selectable_benchmarks()` unless
    given), or None."""
    fitting = [b for b in (selectable_benchmarks() if benchmarks is None else benchmarks) if asset_name.startswith(f"{b}_")]
    return max(fitting, key=len) if fitting else None


def checked_names(option: str, given: Sequence[str] | None, known: Sequence[str], what: str,
                  listed_as: str, refused: Mapping[str, str] | None = None) -> tuple[str, ...] | None:
    """`given` (repeats dropped, order kept) when every name is in `known`; else a ScopeError naming each
    unknown one with why: its registry entry is refused (`refused`: slug -> the refusal), or the closest known
    name if any is close; and listing the known ones (`listed_as`)."""
    if not given:
        return None
    unknown = [name for name in dict.fromkeys(given) if name not in known]
    if unknown:
        lines = []
        for name in unknown:
            if name in (refused or {}):
                lines.append(f"{option} {name!r}: its registry entry is refused: {refused[name]}")
                continue
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            lines.append(f"{option} {name!r}: no such {what}{hint}")
        choices = ", ".join(sorted(known)) or "none"
        raise ScopeError("\n".join(lines) + f"\n({listed_as}: {choices})")
    return tuple(dict.fromkeys(given))


def checked_scope(*, benchmarks: Sequence[str] | None = None, models: Sequence[str] | None = None,
                  judges: Sequence[str] | None = None, limit: int | str | None = None,
                  known_benchmarks: Sequence[str] | None = None, known_models: Sequence[str] = (),
                  known_judges: Sequence[str] = (), refused: Mapping[str, str] | None = None) -> Scope:
    """A Scope from the options as given, every name checked (`known_models`: the registry's candidates;
    `known_judges`: its judges and judge panels; `refused`: slug -> why the registry refused its entry). Raises
    ScopeError listing every fault."""
    faults = []
    checked = {}
    if known_benchmarks is None:
        known_benchmarks = selectable_benchmarks()
    for key, option, given, known, what, listed_as in (
            ("benchmarks", "--benchmark", benchmarks, known_benchmarks, "benchmark", "benchmarks"),
            ("models", "--model", models, known_models, "candidate in the registry", "registered candidates"),
            ("judges", "--judge", judges, known_judges, "judge or judge panel in the registry",
             "registered judges and panels")):
        try:
            checked[key] = checked_names(option, given, known, what, listed_as, refused)
        except ScopeError as exc:
            faults.append(str(exc))
    if limit is not None and limit != ANCHORS and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        faults.append(f"--limit must be a whole number of at least 1, not {limit!r} (or '{ANCHORS}')")
    if faults:
        raise ScopeError("\n".join(faults))
    return Scope(limit=limit, **checked)
