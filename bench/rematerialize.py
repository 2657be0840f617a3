"""Benchmark: cold vs warm materialization of the demo graph, in one run.

Runs the main job's graph (scripts/orchestrate.py, every registered model and judge, simulated) on a
fresh home twice. Prints the end-to-end wall time of the cold run, the ratio warm ÷ cold wall time and
the LLM calls of the warm run (must be 0). From the Dagster instance's event log it also splits the
cold run's wall time into step time (STEP_START to STEP_SUCCESS: our asset and check code, plus
Dagster's bookkeeping inside a step), run overhead outside steps, and orchestration between runs.

    .venv/bin/python bench/rematerialize.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from _common import emit


def event_log_breakdown(instance, run_ids: set[str]) -> dict:
    """Seconds inside runs and inside steps, summed over the given runs, from the instance's events."""
    import dagster as dg

    step_events = {dg.DagsterEventType.STEP_START, dg.DagsterEventType.STEP_SUCCESS, dg.DagsterEventType.STEP_FAILURE}
    in_runs = in_steps = 0.0
    for record in instance.get_run_records():
        if record.dagster_run.run_id not in run_ids:
            continue
        in_runs += (record.end_time or record.start_time) - record.start_time
        started: dict[str, float] = {}
        for event in instance.all_logs(record.dagster_run.run_id, of_type=step_events):
            key = event.dagster_event.step_key
            if event.dagster_event.event_type == dg.DagsterEventType.STEP_START:
                started[key] = event.timestamp
            elif key in started:
                in_steps += event.timestamp - started.pop(key)
    return {"in_runs_s": in_runs, "in_steps_s": in_steps}


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
        warm = materialize_everything(instance, resources)
        t2 = time.perf_counter()
        split = event_log_breakdown(instance, cold_runs)
    cold_s, warm_s = t1 - t0, t2 - t1
    assert warm["api_calls"] == 0, "re-materializing with nothing new must make zero LLM calls"
    steps, runs = split["in_steps_s"], split["in_runs_s"]
    summary = (f"cold {cold_s:.1f} s / {cold['api_calls']} LLM calls / {cold['runs']} runs; warm {warm_s:.1f} s / "
               f"{warm['api_calls']} calls ({warm['cache_hits']} cache hits); warm ÷ cold {warm_s / cold_s:.2f}. Cold run "
               f"by the event log: inside steps {steps / cold_s:.0%}, run overhead outside steps "
               f"{(runs - steps) / cold_s:.0%}, orchestration between runs {(cold_s - runs) / cold_s:.0%}")
    return {"summary": summary, "cold_s": cold_s, "warm_s": warm_s, "warm_calls": warm["api_calls"],
            "cold_calls": cold["api_calls"], "runs": cold["runs"], "in_steps_s": steps, "in_runs_s": runs}


def main() -> None:
    emit("Demo: end to end, warm re-materialization", **measure())


if __name__ == "__main__":
    main()
