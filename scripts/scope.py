"""The main job's scope options (`dev.py run --benchmark/--model/--judge/--limit`), checked, and the home a
limited run writes to. The scope itself is benchwright/scope.py; what it selects, scripts/orchestrate.py.

A limited run (`--limit N`) switches this process to `<home>/limited/N/` before anything opens a file: its own
warehouse (BENCHWRIGHT_WAREHOUSE names the full results' file, so it does not apply here), snapshot and Dagster
home; the run processes and step processes it starts inherit that. Only the response cache stays the full home's
(`scoped_resources`), so nothing answered in a smoke test is paid for again by the full run.

`--limit anchors` reads the anchor items from the full home's analyst snapshot before switching (to
`<home>/limited/anchors/`) and keeps the run to the benchmarks that have a set; none at all ends the program with
why (each benchmark's `anchor_fits` reason).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable
from pathlib import Path

from benchwright.paths import CACHE_FILE, DAGSTER_FOLDER, SNAPSHOT_FILE, WAREHOUSE_VARIABLE, benchwright_home
from benchwright.scope import ANCHORS, Scope, ScopeError, checked_scope, limited_home


def add_scope_arguments(parser: argparse.ArgumentParser, at_least_one: Callable[[str], int]) -> None:
    """The scope's options; `at_least_one` is the parser's type for a whole number of at least 1."""
    group = parser.add_argument_group("scope (default: every benchmark, model and judge, every item)")
    group.add_argument("--benchmark", action="append", metavar="NAME",
                       help="only this benchmark's assets (repeatable): creation, gap, interop (imports), mmmt_if, urs or a "
                            "plugin's; assets of no benchmark (the ledger, the snapshot) still run when stale")
    group.add_argument("--model", action="append", metavar="SLUG",
                       help="only this candidate's partitions: its answers and their judgments (repeatable)")
    group.add_argument("--judge", action="append", metavar="SLUG",
                       help="only this judge's (or judge panel's) judgment partitions (repeatable)")
    group.add_argument("--limit", type=lambda text: ANCHORS if text == ANCHORS else at_least_one(text),
                       metavar="N|anchors",
                       help="smoke test: the first N items of each benchmark, in a home of its own "
                            "(<home>/limited/N/) sharing the response cache with the full home; 'anchors': only "
                            "each benchmark's anchor items (README.md#small-anchor-sets), in <home>/limited/anchors/, "
                            "with each model's estimated full score in anchor_estimates")


def scope_from_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Scope:
    """The checked scope; a name that is not registered (or not a benchmark) ends the program with status 2 and
    the closest name. A limited scope switches this process to its own home (see the module's docstring)."""
    from resources import default_resources
    from scripts.orchestrate import known_benchmarks

    registry = default_resources()["registry"]
    try:
        scope = checked_scope(benchmarks=args.benchmark, models=args.model, judges=args.judge, limit=args.limit,
                              known_benchmarks=known_benchmarks(),
                              known_models=[entry.slug for entry in registry.candidates()],
                              known_judges=[entry.slug for entry in [*registry.judges(), *registry.panels()]],
                              refused={problem.entry: str(problem) for problem in registry.problems()})
    except ScopeError as exc:
        parser.error(str(exc))
    if scope.anchored:
        scope = anchored_scope(parser, scope)
    if scope.limit is not None:
        enter_limited_home(scope)
    return scope


def anchored_scope(parser: argparse.ArgumentParser, scope: Scope) -> Scope:
    """The scope of `--limit anchors`: the benchmarks (of those asked for) with an anchor set in the full home."""
    from benchwright.anchors import anchored_items

    snapshot = benchwright_home() / SNAPSHOT_FILE
    if not snapshot.exists():
        parser.error(f"--limit anchors: no analyst snapshot at {snapshot}: run the full benchmark first")
    found, reasons = anchored_items(str(snapshot))
    benchmarks = [b for b in found if scope.benchmarks is None or b in scope.benchmarks]
    if not benchmarks:
        asked = f" among {', '.join(scope.benchmarks)}" if scope.benchmarks else ""
        parser.error(f"--limit anchors: no benchmark{asked} has an anchor set in {snapshot}:\n  " + "\n  ".join(
            reasons or [f"{', '.join(found)} have one; ask for those"]))
    return dataclasses.replace(scope, benchmarks=tuple(benchmarks))


def enter_limited_home(scope: Scope) -> Path:
    """Point this process (and the processes it starts) at the limited run's home; returns the full home."""
    full_home = benchwright_home()
    home = scope.home(full_home)
    home.mkdir(parents=True, exist_ok=True)
    os.environ["BENCHWRIGHT_HOME"] = str(home)
    os.environ["DAGSTER_HOME"] = str(home / DAGSTER_FOLDER)
    os.environ.pop(WAREHOUSE_VARIABLE, None)
    return full_home


def scoped_resources(resources: dict, scope: Scope) -> dict:
    """A limited run's resources read and write the response cache of the full home (where every answer is kept),
    not one of their own."""
    if scope.limit is None:
        return resources
    llm = resources["llm"]
    home = benchwright_home()  # <full home>/limited/N since enter_limited_home
    assert home == limited_home(home.parents[1], scope.limit), f"{home} is not a limited run's home"
    cache = home.parents[1] / CACHE_FILE
    fields = {name: getattr(llm, name) for name in type(llm).model_fields}
    return {**resources, "llm": type(llm)(**{**fields, "cache_path": str(cache)})}
