"""What a benchmark declares about itself, once, and the one door every benchmark comes in through.

Each benchmark (ours and plugins alike) gives one ``Benchmark``: its name and method version, the drop folders
and files it reads, the judge formats injection flagging looks for, the residual-PII checks of its tables, the
score queries redundancy compares, its sensors, its simulated back end and how its judges judge the canaries. The shared code iterates over
``declared()`` instead of naming benchmarks one by one, so a new benchmark edits no shared file.

``declared()`` loads, in this order:

1. the packaging entry-point group ``benchwright.benchmarks`` (each entry: ``"module:attribute"`` of a
   ``Benchmark``). Ours are declared in pyproject.toml. The repository is run from its checkout and not
   installed (``dev.py`` installs requirements.txt only), so when no ``benchwright`` distribution is installed
   the entries are read from pyproject.toml itself; other installed distributions' entries load either way;
2. each module named in ``BENCHWRIGHT_PLUGINS`` that has a ``DECLARATION``.

The kernel names no benchmark: the list lives in pyproject.toml and in the environment.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import tomllib
from collections.abc import Callable
from dataclasses import dataclass

from benchwright import paths

GROUP = "benchwright.benchmarks"
DISTRIBUTION = "benchwright"


@dataclass(frozen=True)
class JudgeFormat:
    """A judge's output format that a candidate's answer may hold (``benchwright.answer_injection``).

    ``found(answer)`` says whether the benchmark's own parser would read a value from it; ``kind`` is the name
    stored with the answer."""

    kind: str
    found: Callable[[str], bool]
    # The format written in a candidate's favour ("Score: 1"): what the injection canary (benchwright/canaries.py)
    # carries, so that it holds every format a judge's parser reads.
    example: str = ""


@dataclass(frozen=True)
class ResidualPII:
    """A blocking residual-PII check (``checks/residual_pii.py``) on the asset named ``asset``.

    ``sql_file`` (under sql/) selects ``location`` first, then the text columns; a check on a model-partitioned
    asset (``by_model``) passes ``params`` and then the partition's model to the query."""

    asset: str
    name: str
    sql_file: str
    description: str
    params: tuple = ()
    by_model: bool = False


@dataclass(frozen=True)
class FilesSource:
    """An observable source asset (``assets/sources.py``): the content version of dataset folders of the
    checkout (``folders``, relative to it) and of drop folders (``drops``, names under ``drops/``)."""

    name: str
    description: str
    folders: tuple[str, ...] = ()
    drops: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScoreQuery:
    """One of the benchmark's leaderboards as redundancy compares it: ``sql_file`` (under sql/) selects
    (leaderboard, judge, model, score), one score per model and judge ('' when it has none), from the table
    that the asset named ``asset`` writes."""

    sql_file: str
    asset: str


@dataclass(frozen=True)
class Report:
    """A table the main job prints for the benchmark when it ends: ``sql_file`` (under sql/) selects it from the
    analyst snapshot's views."""

    title: str
    sql_file: str


@dataclass(frozen=True)
class Benchmark:
    name: str
    version: str  # the method's version: the package's METHOD_VERSION
    drop_folders: tuple[str, ...] = ()  # folders under drops/ that producers fill for it
    sources: tuple[FilesSource, ...] = ()
    judge_formats: tuple[JudgeFormat, ...] = ()
    residual_pii: tuple[ResidualPII, ...] = ()
    scores: tuple[ScoreQuery, ...] = ()
    reports: tuple[Report, ...] = ()  # what the main job prints for it, in this order
    # What `dev.py show NAME` prints: its leaderboard with intervals where it has them, from the snapshot's views.
    # The SQL may use $judge (NULL: every judge) and $control (NULL: its default); scripts/leaderboards.py.
    leaderboard: Report | None = None
    # Dagster sensors of its wiring, as "module:attribute" (the kernel never imports dagster; definitions.py does).
    sensors: tuple[str, ...] = ()
    # The module of its simulated back end (``benchwright.simulate``): ``RESPONDERS``, a responder per prompt
    # version, and optionally ``version_of(request)`` for callers that have only the messages.
    simulated: str = ""
    # How its judges judge the integrity canaries' fixed answers (benchwright/canaries.py): "module:attribute" of
    # its wiring's `CanaryJudging`, or of a tuple of them, one per judged figure (like `sensors`, the kernel never
    # imports the wiring); "" for none.
    canaries: str = ""


def _listed_entry_points() -> list[importlib.metadata.EntryPoint]:
    """The group's entry points: installed distributions', plus ours from pyproject.toml when the checkout is
    not installed as a distribution (how the README's commands run it)."""
    found = list(importlib.metadata.entry_points(group=GROUP))
    try:
        importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        ours = project.get("entry-points", {}).get(GROUP, {})
        found = [importlib.metadata.EntryPoint(name, value, GROUP) for name, value in ours.items()] + found
    return found


@functools.cache
def _declared(plugins: tuple[str, ...]) -> tuple[Benchmark, ...]:
    loaded: list[Benchmark] = []
    for entry in _listed_entry_points():
        declaration = entry.load()
        if not isinstance(declaration, Benchmark):
            raise TypeError(f"entry point {entry.name} = {entry.value!r} of {GROUP} is not a Benchmark")
        loaded.append(declaration)
    for name in plugins:
        declaration = getattr(importlib.import_module(name), "DECLARATION", None)
        if declaration is not None:
            if not isinstance(declaration, Benchmark):
                raise TypeError(f"{paths.PLUGINS_VARIABLE} names {name!r}, whose DECLARATION is not a Benchmark")
            loaded.append(declaration)
    seen: dict[str, Benchmark] = {}
    for declaration in loaded:
        if declaration.name in seen and seen[declaration.name] is not declaration:
            raise ValueError(f"two benchmarks are declared as {declaration.name!r}")
        seen[declaration.name] = declaration
    return tuple(seen.values())


def declared() -> tuple[Benchmark, ...]:
    """Every declared benchmark: entry points first (ours in pyproject.toml's order), then plugins."""
    return _declared(tuple(paths.plugin_modules()))


def named(name: str) -> Benchmark:
    for benchmark in declared():
        if benchmark.name == name:
            return benchmark
    raise KeyError(f"no benchmark is declared as {name!r}")


def load_attribute(reference: str):
    """The object a "module:attribute" reference names (the sensors of a declaration)."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)
