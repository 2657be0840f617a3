"""Benchmark: how long `dev.py plan` takes against the run it plans, and whether it counted exactly.

On a fresh temporary home the demo graph runs cold (every shipped simulated model and judge). Then a new
candidate and a new judge are registered, both priced models of litellm's table (`openai/gpt-4o-mini`,
`openai/gpt-4o`) served by the loopback OpenAI-compatible server (tests/support/openai_server.py, in its own
process, answering at once unless `--latency`, as the simulator would: a judge's verdicts parse, so the run's
checks pass as the demo's do). The plan runs (scripts/plan.py `plan`), then the main job for
real (scripts/orchestrate.py `materialize_everything`, as `dev.py demo` would). Reported: plan wall time ÷ the
run's wall time (target ≤ 0.10), the plan's calls and cost, and whether the planned calls equal the calls made
per benchmark × stage × model × judge × called model (they must).

    .venv/bin/python bench/plan_speed.py                 # about 5 minutes here, most of it the cold demo
    .venv/bin/python bench/plan_speed.py --latency 0.5   # the server answers each call after 0.5 s
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _common import emit, event_log_breakdown, loopback_server, simulated_reply


def _calls(rows: list[dict]) -> dict:
    """Calls made per (benchmark, stage, model, judge, called model) from `ResponseCache.ledger_by_model` rows."""
    return {(r["benchmark"], r["stage"], r["model"], r["judge"], r["called"]): r["calls"] for r in rows if r["calls"]}


def measure(latency_s: float) -> dict:
    import dagster as dg

    from benchwright.llm import ResponseCache
    from resources import prepare_dagster_home
    from scripts.orchestrate import materialize_everything
    from scripts.plan import plan
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

    with tempfile.TemporaryDirectory(prefix="bench-plan-") as tmp:
        home = Path(tmp)
        models, judges = dict(SHIPPED_MODELS), dict(SHIPPED_JUDGES)
        write_registry(home, models, judges)
        os.environ.update({"BENCHWRIGHT_HOME": str(home), "BENCHWRIGHT_MODELS": str(home / "models.yaml"),
                           "BENCHWRIGHT_JUDGES": str(home / "judges.yaml")})
        os.environ.pop("DAGSTER_HOME", None)
        dagster_home = prepare_dagster_home(home)
        os.environ["DAGSTER_HOME"] = str(dagster_home)
        started = time.perf_counter()
        with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
            cold = materialize_everything(instance, resources_for(home))
        cold_s = time.perf_counter() - started
        assert cold["failed_runs"] == 0, "the cold demo failed"

        with loopback_server(latency_s, lifetime_s=3600, reply=simulated_reply) as url:
            models["bench-writer"] = {"model": "openai/gpt-4o-mini", "api_base": url, "role": "candidate"}
            judges["bench-judge"] = {"model": "openai/gpt-4o", "api_base": url, "role": "judge"}
            write_registry(home, models, judges)
            started = time.perf_counter()
            planned = plan(home, dagster_home, log=lambda _line: None)
            plan_s = time.perf_counter() - started
            started = time.perf_counter()
            with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
                run = materialize_everything(instance, resources_for(home))
                run_s = time.perf_counter() - started
                split = event_log_breakdown(instance, set(run["run_ids"]))
        cache = ResponseCache(resources_for(home)["llm"].cache_path)
        try:
            made = _calls(cache.ledger_by_model(run["run_ids"]))  # read as the plan reads its own copy's ledger
        finally:
            cache.close()
    counted = _calls(planned["rows"])
    exact = counted == made
    off_stages: dict[str, list[int]] = {}  # stage -> [planned, made] where a key of it differs
    for key in sorted(set(counted) | set(made)):
        if counted.get(key, 0) != made.get(key, 0):
            print(f"planned {counted.get(key, 0)}, made {made.get(key, 0)}: {' × '.join(key)}")
            off_stages.setdefault(key[1], [0, 0])
    for key in set(counted) | set(made):
        if key[1] in off_stages:
            off_stages[key[1]][0] += counted.get(key, 0)
            off_stages[key[1]][1] += made.get(key, 0)
    differences = "; ".join(f"{stage}: planned {p}, made {m}" for stage, (p, m) in sorted(off_stages.items()))
    ratio = plan_s / run_s
    slowest = sorted(split["by_step_s"].items(), key=lambda item: -item[1])[:3]
    summary = (f"demo cold {cold_s:.1f} s; + a new candidate and judge (loopback, {latency_s:g} s per call): "
               f"plan {plan_s:.1f} s ({planned['runs']} runs), run {run_s:.1f} s ({run['runs']} runs, "
               f"{run['failed_runs']} failed): **plan ÷ run {ratio:.2f}** (target ≤ 0.10: "
               f"{'met' if ratio <= 0.10 else 'missed'}); planned {planned['totals']['calls']} calls, "
               f"${planned['totals']['cost_usd']:.4f}; made {sum(made.values())}: "
               f"{'exact' if exact else 'NOT exact'} per benchmark × stage × model × judge × called model"
               f"{'' if exact else f' (stages that differ, all partitions summed: {differences})'}; "
               f"the run's slowest steps: " + ", ".join(f"{step} {seconds:.1f} s" for step, seconds in slowest))
    return {"summary": summary, "cold_s": cold_s, "plan_s": plan_s, "run_s": run_s, "ratio": ratio, "exact": exact,
            "planned_calls": planned["totals"]["calls"], "made_calls": sum(made.values()),
            "planned_cost_usd": planned["totals"]["cost_usd"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds the loopback server waits per call")
    args = parser.parse_args()
    emit("Plan: dev.py plan ÷ the run it plans (demo + a new candidate and judge)", **measure(args.latency))


if __name__ == "__main__":
    main()
