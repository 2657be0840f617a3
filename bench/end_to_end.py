"""Benchmark: where the demo's wall time goes, Dagster or our code (cProfile, one cold run).

Runs the main job's graph cold on a fresh home under cProfile. "Our code" is the time inside the asset
and check functions Dagster calls (everything they call included: benchwright/, the warehouse,
the LLM layer, great-expectations); the rest is Dagster (run and step machinery, event storage,
job building) and the orchestration loop. Within our code: the LLM layer (LLMRunner.run), the
warehouse (Warehouse methods) and the great-expectations suites. cProfile slows Python code down, so
the shares matter, not the seconds; bench/rematerialize.py gives the unprofiled wall time.

    .venv/bin/python bench/end_to_end.py
"""

from __future__ import annotations

import cProfile
import pstats
import tempfile
import time
from pathlib import Path

from _common import ROOT, emit

WAREHOUSE_METHODS = {"replace_rows", "add_new_rows", "query", "query_file", "publish_snapshot"}


OUR_FOLDERS = {"assets", "checks", "sensors", "resources", "scripts", "benchwright", "definitions.py"}


def _ours(filename: str) -> str | None:
    """Our top-level folder a profiled function lives in, or None (libraries, .venv, stdlib)."""
    path = Path(filename)
    if not path.is_absolute() or not path.is_relative_to(ROOT):
        return None
    top = path.relative_to(ROOT).parts[0]
    return top if top in OUR_FOLDERS else None


def measure() -> dict:
    import dagster as dg

    from scripts.orchestrate import materialize_everything
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

    profile = cProfile.Profile()
    with tempfile.TemporaryDirectory() as tmp, dg.instance_for_test() as instance:
        home = Path(tmp)
        write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
        resources = resources_for(home)
        started = time.perf_counter()
        profile.enable()
        summary = materialize_everything(instance, resources)
        profile.disable()
        wall = time.perf_counter() - started
    assert summary["failed_runs"] == 0, summary

    stats = pstats.Stats(profile).stats  # (file, line, name) -> (cc, nc, tottime, cumtime, callers)
    ours = llm = warehouse = expectations = 0.0
    for (filename, _line, name), (_cc, _nc, _tt, cumtime, callers) in stats.items():
        where = _ours(filename)
        # An asset or check function: defined in assets/ or checks/ and called by Dagster itself.
        if where in ("assets", "checks") and callers and all("/dagster/" in c[0] for c in callers):
            ours += cumtime
        elif where == "benchwright" and name == "run" and filename.endswith("llm/runner.py"):
            llm += cumtime
        elif where == "resources" and filename.endswith("warehouse.py") and name in WAREHOUSE_METHODS:
            # Count only calls from outside the warehouse, so query_file -> query is not counted twice.
            warehouse += sum(v[3] for c, v in callers.items() if not c[0].endswith("warehouse.py"))
        elif where == "benchwright" and name == "validate_frame":
            expectations += cumtime
    total = sum(v[2] for v in stats.values())  # all profiled time (tottime summed)
    other = ours - llm - warehouse - expectations
    text = (f"cold demo run under cProfile ({wall:.0f} s, {summary['runs']} runs): our asset and check code "
            f"{ours / total:.0%} (LLM layer {llm / total:.0%}, warehouse {warehouse / total:.0%}, great-expectations "
            f"{expectations / total:.0%}, the rest {other / total:.0%}); Dagster and orchestration {1 - ours / total:.0%}")
    return {"summary": text, "profiled_wall_s": wall, "ours_share": ours / total, "llm_share": llm / total,
            "warehouse_share": warehouse / total, "great_expectations_share": expectations / total}


def main() -> None:
    emit("Demo: Dagster vs our code", **measure())


if __name__ == "__main__":
    main()
