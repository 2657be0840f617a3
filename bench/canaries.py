"""Benchmark: what the integrity canaries add to the demo's cold wall time, measured within one cold run.

Runs the main job's graph (scripts/orchestrate.py) cold on a fresh home with the shipped registry, then reads the
Dagster instance's run records: the canaries are one asset, `canary_judgments`, in runs of their own (one per
judge), so their share is those runs' wall time over the whole cold run's. Orchestration between runs (the
resolver, starting a run) is counted for them too, at the cold run's mean per run. Target (issue #33): ≤ 0.10.
Also the canaries' calls against all of the run's calls, from the cost ledger.

    .venv/bin/python bench/canaries.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from _common import emit, machine


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
        cold_s = time.perf_counter() - t0
        records = instance.get_run_records()
        in_runs = sum((r.end_time or r.start_time) - r.start_time for r in records)
        canary_runs = [r for r in records if {k.to_user_string() for k in r.dagster_run.asset_selection or ()}
                       == {"canary_judgments"}]
        canary_s = sum((r.end_time or r.start_time) - r.start_time for r in canary_runs)
        between_per_run = max(0.0, cold_s - in_runs) / max(1, len(records))
        ledger = resources["warehouse"].query("SELECT stage, cached, results FROM llm_ledger")
        calls = ledger[~ledger["cached"]]
        canary_calls = int(calls.loc[calls["stage"] == "canary_judgments", "results"].sum())
        results = resources["warehouse"].query("SELECT * FROM canary_results")
    beaten = int(results["beats_threshold"].sum())
    # per judge × benchmark × figure (Creation has two): the canaries' highest figure and 95 % lower bound against
    # the threshold
    closest = "; ".join(
        f"{judge} {benchmark} {metric}: max {group['figure'].max():.3f} (lower {group['figure_lower'].max():.3f})"
        f" vs threshold {group['threshold'].iloc[0]:.3f}"
        for (judge, benchmark, metric), group in results.groupby(["judge", "benchmark", "metric"]))
    share = (canary_s + between_per_run * len(canary_runs)) / cold_s
    summary = (f"cold demo {cold_s:.1f} s, {cold['runs']} runs, {cold['api_calls']} calls; canary_judgments: "
               f"{len(canary_runs)} runs, {canary_s:.1f} s in them (+ {between_per_run * len(canary_runs):.1f} s of "
               f"orchestration at the mean per run), {canary_calls} calls ({canary_calls / max(1, int(calls['results'].sum())):.1%} "
               f"of the calls); share of the cold wall time {share:.1%} (target ≤ 10 %: "
               f"{'met' if share <= 0.10 else 'missed'}); canaries beating a judge: {beaten}. Closest: {closest}")
    return {"summary": summary, "cold_s": cold_s, "canary_s": canary_s, "canary_runs": len(canary_runs),
            "share": share, "canary_calls": canary_calls, "calls": int(calls["results"].sum()), "beaten": beaten,
            "machine": machine()}


def main() -> None:
    emit("Integrity canaries: share of the demo's cold wall time", **measure())


if __name__ == "__main__":
    main()
