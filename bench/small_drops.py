"""Benchmark: what a small drop costs. The demo graph cold in a temporary home, then one game round (one
image's three marks) and one annotation round (a human pairwise CSV of three choices), each written as the web
app writes them (tests/support/drops.py) and followed by the main job's graph (scripts/orchestrate.py).
Target: each round ≤ 0.10 of the cold wall time, with no generation or judgment partition run and no LLM call.

    .venv/bin/python bench/small_drops.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from _common import emit, event_log_breakdown


def measure() -> dict:
    import dagster as dg

    from benchwright import paths
    from benchwright.gap.declaration import LOG_DROPS
    from scripts.orchestrate import materialize_everything
    from tests.support.drops import write_annotation_round, write_game_round
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

    with tempfile.TemporaryDirectory() as tmp, dg.instance_for_test() as instance:
        home = Path(tmp)
        write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
        resources = resources_for(home)
        warehouse = resources["warehouse"]
        t0 = time.perf_counter()
        cold = materialize_everything(instance, resources)
        cold_s = time.perf_counter() - t0
        rounds = {}
        for name, drop in (("game", lambda: write_game_round(warehouse, paths.drop_folder(warehouse.database,
                                                                                              LOG_DROPS))),
                           ("annotation", lambda: write_annotation_round(
                               paths.drop_folder(warehouse.database, paths.HUMAN_PAIRWISE)))):
            drop()
            t0 = time.perf_counter()
            summary = materialize_everything(instance, resources)
            seconds = time.perf_counter() - t0
            partitions = sorted({key for key, partition in summary["materialized"] if partition is not None})
            split = event_log_breakdown(instance, set(summary["run_ids"]))
            rounds[name] = {"s": seconds, "runs": summary["runs"], "calls": summary["api_calls"],
                            "ratio": seconds / cold_s, "partitioned": partitions, "in_runs_s": split["in_runs_s"],
                            "in_steps_s": split["in_steps_s"],
                            "slowest": sorted(split["by_step_s"].items(), key=lambda kv: -kv[1])[:3],
                            "assets": [key if partition is None else f"{key} [{partition}]"
                                       for key, partition in summary["materialized"]]}
        noop = materialize_everything(instance, resources)
    parts = [f"cold {cold_s:.1f} s / {cold['runs']} runs / {cold['api_calls']} calls"]
    for name, r in rounds.items():
        met = "met" if r["ratio"] <= 0.10 and not r["partitioned"] else "missed"
        parts.append(f"one {name} round {r['s']:.1f} s / {r['runs']} runs / {r['calls']} calls: ÷ cold {r['ratio']:.2f} "
                     f"(target ≤ 0.10: {met}); ran {', '.join(r['assets']) or 'nothing'}; inside runs {r['in_runs_s']:.1f} s, "
                     f"inside steps {r['in_steps_s']:.1f} s, slowest steps "
                     + ", ".join(f"{step} {s:.1f} s" for step, s in r["slowest"]))
    parts.append(f"then nothing new: {noop['runs']} runs / {noop['api_calls']} calls")
    return {"summary": "; ".join(parts), "cold_s": cold_s, "cold_runs": cold["runs"],
            **{f"{name}_{k}": v for name, r in rounds.items() for k, v in r.items() if k not in ("assets", "slowest")},
            "noop_runs": noop["runs"], "noop_calls": noop["api_calls"]}


def main() -> None:
    emit("Small drops: one game round, one annotation round, after the demo cold", **measure())


if __name__ == "__main__":
    main()