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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replay", action="store_true", help="fail on any LLM cache miss instead of calling")
    args = parser.parse_args(argv)

    from resources import benchwright_home, prepare_dagster_home

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
    board = warehouse.query(
        "SELECT judge_display AS judge, model_display AS model, round(vfs, 2) AS vfs, round(reward, 1) AS reward, "
        "round(win_rate, 3) AS win_rate, mb, better, tie, worse, mw, fail FROM creation_leaderboard "
        "WHERE scope = 'overall' ORDER BY judge, reward DESC")
    quality = warehouse.query(
        "SELECT judge_display AS judge, pairs, round(exact_consistency, 3) AS exact_consistency, "
        "round(relaxed_consistency, 3) AS relaxed_consistency, round(parse_rate, 3) AS parse_rate, "
        "round(p_prefer_first, 3) AS p_prefer_first, round(p_prefer_longer, 3) AS p_prefer_longer "
        "FROM judge_quality ORDER BY judge")
    print("\n== Creation leaderboard (overall; [simulated] = offline simulator, not a real model) ==")
    print(text_table(board))
    print("\n== Judge quality ==")
    print(text_table(quality))
    print(f"\nRuns: {summary['runs']} ({summary['failed_runs']} failed), LLM calls made: {summary['api_calls']}, "
          f"cache hits: {summary['cache_hits']}, failed checks: {summary['failed_checks']}, {elapsed:.0f} s")
    for line in summary["check_failures"]:
        print(f"  check: {line}")
    print(f"\nWarehouse:        {warehouse.database}")
    print(f"Analyst snapshot: {warehouse.snapshot_path}   (query: duckdb -readonly {warehouse.snapshot_path})")
    print(f"LLM cache:        {resources['llm'].cache_path}")
    print(f"Dagster runs:     DAGSTER_HOME={os.environ['DAGSTER_HOME']}  (python3.11 dev.py ui)")
    return 1 if summary["failed_runs"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
