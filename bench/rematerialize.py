"""Benchmark: cold, no-op and forced re-materialization of the demo graph, in one run.

Runs the main job's graph (scripts/orchestrate.py, every registered model and judge, simulated) on a
fresh home three times: cold; again with nothing new (only what is missing or stale runs: target
no-op ÷ cold ≤ 0.10, 0 runs, 0 calls); and forced (every asset again, every answer from the cache: 0 calls). From the Dagster instance's event log it also splits the
cold run's wall time into step time (STEP_START to STEP_SUCCESS: our asset and check code, plus
Dagster's bookkeeping inside a step), run overhead outside steps, and orchestration between runs.

    .venv/bin/python bench/rematerialize.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from _common import emit, event_log_breakdown


def measure() -> dict:
    import dagster as dg

    from scripts.orchestrate import materialize_everything
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

    with tempfile.TemporaryDirectory() as tmp, dg.instance_for_test() as instance:
        home = Path(tmp)
        write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
        resources = resources_for(home)
        t0 = time.perf_counter()
        cold = materialize_everything(instance, resources)
        t1 = time.perf_counter()
        cold_runs = {r.dagster_run.run_id for r in instance.get_run_records()}
        noop = materialize_everything(instance, resources)
        t2 = time.perf_counter()
        forced = materialize_everything(instance, resources, force=True)
        t3 = time.perf_counter()
        split = event_log_breakdown(instance, cold_runs)
    cold_s, noop_s, forced_s = t1 - t0, t2 - t1, t3 - t2
    assert noop["api_calls"] == forced["api_calls"] == 0, "re-materializing with nothing new must make zero LLM calls"
    steps, runs = split["in_steps_s"], split["in_runs_s"]
    summary = (f"cold {cold_s:.1f} s / {cold['api_calls']} LLM calls / {cold['runs']} runs; no-op {noop_s:.1f} s / "
               f"{noop['runs']} runs / {noop['api_calls']} calls: no-op ÷ cold {noop_s / cold_s:.2f} (target ≤ 0.10: "
               f"{'met' if noop_s <= 0.10 * cold_s else 'missed'}); forced {forced_s:.1f} s / {forced['api_calls']} calls "
               f"({forced['cache_hits']} cache hits), forced ÷ cold {forced_s / cold_s:.2f}. Cold run by the event log: "
               f"inside steps {steps / cold_s:.0%}, run overhead outside steps {(runs - steps) / cold_s:.0%}, "
               f"orchestration between runs {(cold_s - runs) / cold_s:.0%}")
    return {"summary": summary, "cold_s": cold_s, "noop_s": noop_s, "forced_s": forced_s, "noop_runs": noop["runs"],
            "noop_calls": noop["api_calls"], "forced_calls": forced["api_calls"], "cold_calls": cold["api_calls"],
            "runs": cold["runs"], "in_steps_s": steps, "in_runs_s": runs}


def main() -> None:
    emit("Demo: end to end, cold / no-op / forced re-materialization", **measure())


if __name__ == "__main__":
    main()
