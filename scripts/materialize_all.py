"""The main job: materialize the whole asset graph for every registered model and judge, in order,
as Dagster runs recorded in the local instance (so `dagster dev` shows them afterwards), then print
where the results are and the leaderboard.

    .venv/bin/python scripts/materialize_all.py            # live mode: call models on cache misses
    .venv/bin/python scripts/materialize_all.py --replay   # replay: a cache miss is an error

Re-running with nothing new makes zero LLM calls: every answer comes from the response cache.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


# What the main job prints: the headline table of each benchmark, from the analyst snapshot's views.
REPORTS = [
    ("Creation leaderboard (overall; judge and model are slugs, simulated = offline simulator, not a real model)",
     "SELECT judge, model, round(vfs, 2) AS vfs, round(reward, 1) AS reward, round(win_rate, 3) AS win_rate, "
     "mb, better, tie, worse, mw, fail, simulated, flagged_injection FROM creation_leaderboard_overall"),
    ("Judge quality (position-swap consistency, parse rate, biases)",
     "SELECT judge, pairs, round(exact_consistency, 3) AS exact_consistency, "
     "round(relaxed_consistency, 3) AS relaxed_consistency, round(parse_rate, 3) AS parse_rate, "
     "round(p_prefer_first, 3) AS p_prefer_first, round(p_prefer_longer, 3) AS p_prefer_longer FROM judge_report"),
    ("MMMT-IF leaderboard (PIF with 95 % bounds; PIF-N-N = all N samples follow every instruction)",
     "SELECT model, variant, round(pif, 3) AS pif, round(pif_lower, 3) AS pif_lower, round(pif_upper, 3) AS pif_upper, "
     "round(pif_n_n, 3) AS pif_n_n, n_samples, flagged_injection FROM mmmt_if_leaderboard"),
    ("URS leaderboard (mean final score 1-10; the reference answer is worth 8)",
     "SELECT judge, model, round(final_score, 2) AS final_score, n, parse_failures, flagged_injection "
     "FROM urs_leaderboard_overall"),
    ("GAP-VQA scores (0-1 judge score of each model's answers on val)",
     "SELECT judge, model, round(gpt_score, 3) AS gpt_score, n, parse_failures, simulated, flagged_injection "
     "FROM gap_leaderboard"),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replay", action="store_true", help="fail on any LLM cache miss instead of calling")
    args = parser.parse_args(argv)

    from benchwright.paths import benchwright_home
    from resources import prepare_dagster_home

    os.environ["DAGSTER_HOME"] = str(prepare_dagster_home(benchwright_home()))

    import dagster as dg

    from benchwright.report import text_table
    from resources import default_resources
    from scripts.orchestrate import materialize_everything

    resources = default_resources(llm_mode="replay" if args.replay else None)
    started = time.monotonic()
    with dg.DagsterInstance.get() as instance:
        summary = materialize_everything(instance, resources, log=print)
    elapsed = time.monotonic() - started

    warehouse = resources["warehouse"]
    # Read the results the way an analyst does: from the read-only snapshot and its views.
    import duckdb

    snapshot = duckdb.connect(warehouse.snapshot_path, read_only=True)
    try:
        for title, sql in REPORTS:
            print(f"\n== {title} ==")
            print(text_table(snapshot.execute(sql).df()))
    finally:
        snapshot.close()
    print(f"\nRuns: {summary['runs']} ({summary['failed_runs']} failed), LLM calls made: {summary['api_calls']}, "
          f"cache hits: {summary['cache_hits']}, failed checks: {summary['failed_checks']}, {elapsed:.0f} s")
    for line in summary["check_failures"]:
        print(f"  check: {line}")
    if summary["registry_problems"]:
        print(f"Registry entries refused (not evaluated until fixed): {len(summary['registry_problems'])}")
        for line in summary["registry_problems"]:
            print(f"  registry: {line}")
    print(f"\nWarehouse:        {warehouse.database}")
    print(f"Analyst snapshot: {warehouse.snapshot_path}   (query: duckdb -readonly {warehouse.snapshot_path})")
    print(f"LLM cache:        {resources['llm'].cache_path}")
    print(f"Dagster runs:     DAGSTER_HOME={os.environ['DAGSTER_HOME']}  (python3.11 dev.py ui)")
    return 1 if summary["failed_runs"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
