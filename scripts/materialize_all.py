"""The main job: materialize the whole asset graph for every registered model and judge, in order,
as Dagster runs recorded in the local instance (so `dagster dev` shows them afterwards), then print
where the results are and the leaderboard.

    .venv/bin/python scripts/materialize_all.py            # live mode: call models on cache misses
    .venv/bin/python scripts/materialize_all.py --replay   # replay: a cache miss is an error
    .venv/bin/python scripts/materialize_all.py --force    # run every asset, not only what is missing or stale
    .venv/bin/python scripts/materialize_all.py --workers 2  # up to 2 steps at once, each in its own process
    .venv/bin/python scripts/materialize_all.py --parallel-runs 4  # up to 4 runs of a stage at once
    .venv/bin/python scripts/materialize_all.py --benchmark urs --model M --judge J --limit 5  # a scope (scripts/scope.py)
    .venv/bin/python scripts/materialize_all.py --max-cost 5  # plan first; exit 2 if it would cost more than $5

Only what is missing or stale runs (Dagster's staleness, as the UI shows it), and what holds failed LLM calls
that are not given up (asked again; benchwright/llm/failures.py): re-running with nothing new runs nothing. A
forced run makes zero LLM calls too: every answer comes from the response cache. The exit status is 1 when a run
failed or when every call of some step failed.
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

from scripts.scope import add_scope_arguments, scope_from_arguments, scoped_resources  # noqa: E402

# Printed at the end of a run on the anchor items (`--limit anchors`).
ANCHOR_ESTIMATES_SQL = "core/queries/anchors/estimates_report.sql"


def _at_least_one(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number (at least 1), not {text!r}")
    return int(text)


def _dollars(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"must be a number of dollars (at least 0), not {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replay", action="store_true", help="fail on any LLM cache miss instead of calling")
    parser.add_argument("--force", action="store_true", help="run every asset, not only what is missing or stale")
    parser.add_argument("--workers", type=_at_least_one, default=None,
                        help="steps run at once, each in its own process (default: BENCHWRIGHT_WORKERS or 1)")
    parser.add_argument("--retry-given-up", action="store_true",
                        help="ask again the requests given up after failing with the same permanent 4xx three runs "
                             "in a row (benchwright/llm/failures.py); their partitions run again (the plan of "
                             "--max-cost counts them)")
    parser.add_argument("--parallel-runs", type=_at_least_one, default=None,
                        help="runs of one stage at once, e.g. several models' generations (default: "
                             "BENCHWRIGHT_PARALLEL_RUNS, else 8 with a model that calls a provider, else 1)")
    add_scope_arguments(parser, _at_least_one)
    parser.add_argument("--max-cost", type=_dollars, default=None, metavar="USD",
                        help="plan first (as `dev.py plan`) and do not start (exit 2) when the planned cost is above "
                             "USD dollars; while running, stop sending calls before this run's spend would cross it "
                             "(the answers are kept; a run with a larger cap sends the rest)")
    # dev.py says which of its commands this is (demo, or run by default); the runs carry it as a tag.
    parser.add_argument("--launched-by", choices=("run", "demo"), default="run", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    from benchwright.paths import benchwright_home, count_setting

    try:  # a bad setting is refused here, by name, before anything runs
        for variable in ("BENCHWRIGHT_WORKERS", "BENCHWRIGHT_PARALLEL_RUNS", "BENCHWRIGHT_KEEP_RUNS"):
            count_setting(variable, 1)
    except ValueError as exc:
        parser.error(str(exc))
    scope = scope_from_arguments(parser, args)  # exit 2 on a name not registered; --limit: its own home
    from resources import prepare_dagster_home

    os.environ["DAGSTER_HOME"] = str(prepare_dagster_home(benchwright_home()))
    from benchwright.home_lock import one_main_job_at_a_time

    with one_main_job_at_a_time(benchwright_home()):  # a second main job on this home waits for the first
        return run_main_job(args, scope)


def run_main_job(args: argparse.Namespace, scope) -> int:
    """The main job on the home (DAGSTER_HOME set), its summary printed; the exit status."""
    import dagster as dg

    from benchwright.paths import benchwright_home, count_setting

    from benchwright.report import text_table
    from definitions import reports
    from resources.warehouse import read_sql
    from resources import default_resources
    from scripts.compact_runs import KEEP_RUNS_DEFAULT, KEEP_RUNS_VARIABLE, keep_the_home_bounded
    from scripts.orchestrate import materialize_everything

    from benchwright.llm.providers import ProviderEntriesRefused

    if args.max_cost is not None:
        from scripts.plan import check_cost

        try:
            if check_cost(args.max_cost, scope=scope, retry_given_up=args.retry_given_up):  # above the limit
                return 2
        except ProviderEntriesRefused as refused:
            print(f"Not started: {refused}")
            return 2
    resources = scoped_resources(default_resources(llm_mode="replay" if args.replay else None), scope)
    llm_options = {}
    if args.retry_given_up:
        llm_options["retry_given_up"] = True
    if args.max_cost is not None:  # the plan may be wrong (answers longer than expected): the calls are capped too
        llm_options.update(max_cost_usd=args.max_cost, budget_since=time.time())
    if llm_options:
        from resources.llm import llm_with

        resources["llm"] = llm_with(resources["llm"], **llm_options)
    from benchwright import progress_bars

    if sys.stdout.isatty():  # bars for a person at a terminal; logs and CI get the lines alone
        os.environ.setdefault(progress_bars.BARS_VARIABLE, "1")
    started = time.monotonic()
    with dg.DagsterInstance.get() as instance:
        try:
            summary = materialize_everything(instance, resources, log=progress_bars.write, force=args.force,
                                             workers=args.workers, parallel_runs=args.parallel_runs, scope=scope,
                                             launched_by=args.launched_by)
        except ProviderEntriesRefused as refused:  # nothing ran: the providers' limits must be fixed first
            print(f"Not started: {refused}")
            return 2
        compacted = keep_the_home_bounded(instance, count_setting(KEEP_RUNS_VARIABLE, KEEP_RUNS_DEFAULT))
        if compacted:
            print(f"Dagster home: {compacted['deleted_runs']} superseded runs deleted (over {KEEP_RUNS_VARIABLE}), "
                  f"{compacted['bytes_freed'] / 1e6:.1f} MB freed")
    elapsed = time.monotonic() - started

    warehouse = resources["warehouse"]
    # Read the results the way an analyst does: from the read-only snapshot and its views.
    import duckdb

    snapshot = duckdb.connect(warehouse.snapshot_path, read_only=True)
    try:
        for title, sql in reports():
            print(f"\n== {title} ==")
            print(text_table(snapshot.execute(sql).df()))
        if scope.anchored:
            print("\n== Estimated full-benchmark scores from the anchor items (95 % interval; anchor_estimates) ==")
            print(text_table(snapshot.execute(read_sql(ANCHOR_ESTIMATES_SQL)).df()))
    finally:
        snapshot.close()
    if summary["run_ids"]:
        costs = warehouse.query_file("core/queries/ledger/job_costs.sql", [summary["run_ids"]])
        print(f"\nLLM use of this job's runs: {costs['calls'].sum()} calls, {costs['cache_hits'].sum()} cache hits, "
              f"${costs['cost_usd'].sum():.4f} (per model and judge, with latencies: the cost_ledger view)")
        print(text_table(costs))
    print(f"\nRuns: {summary['runs']} ({summary['failed_runs']} failed), LLM calls made: {summary['api_calls']}, "
          f"failed calls: {summary['failed_calls']} ({summary['given_up']} given up), "
          f"cache hits: {summary['cache_hits']}, failed checks: {summary['failed_checks']}, "
          f"up to date (not run): {summary['up_to_date']}, {elapsed:.0f} s")
    for line in summary["check_failures"]:
        print(f"  check: {line}")
    if summary.get("refused_records"):
        print(f"Records refused by loaders and imports (files still read; each one located in dataset_problems): "
              f"{sum(summary['refused_records'].values())}")
        for asset, count in sorted(summary["refused_records"].items()):
            print(f"  refused: {asset}: {count}")
    if summary.get("not_sent"):
        print(f"Budget reached: {summary['not_sent']} requests not sent (counted in the failed calls); raise the "
              f"budget (the entry's budget_usd, or --max-cost) to continue: the next run sends only those")
        for line in summary["budgets"]:
            print(f"  {line}")
    if summary["failed_calls"] > summary["given_up"]:
        print("Failed calls are asked again by the next run (or the daemon's failed_calls_sensor); "
              "given-up ones by --retry-given-up.")
    for line in summary["all_calls_failed"]:
        print(f"  every call failed: {line}")
    if summary["registry_problems"]:
        print(f"Registry entries refused (not evaluated until fixed): {len(summary['registry_problems'])}")
        for line in summary["registry_problems"]:
            print(f"  registry: {line}")
    if scope.narrowed:
        print(f"Scope: {scope.describe()}; {len(summary['out_of_scope'])} assets out of scope (not run)")
    if scope.limit is not None:
        print(f"Limited run: these results are in a home of their own, {benchwright_home()}, never mixed with the "
              f"full results; their answers are in the full home's cache, for the full run to reuse.")
    print(f"\nWarehouse:        {warehouse.database}")
    print(f"Analyst snapshot: {warehouse.snapshot_path}   (query: python3.11 dev.py sql; export: python3.11 dev.py "
          "export --to DIR)")
    print(f"LLM cache:        {resources['llm'].cache_path}")
    print(f"Dagster runs:     DAGSTER_HOME={os.environ['DAGSTER_HOME']}  (python3.11 dev.py ui)")
    return exit_status(summary)


def exit_status(summary: dict) -> int:
    """1 when a run failed (a blocking check's ERROR fails its run: more than 10 % of a step's calls failed, say)
    or a step's every call failed (a provider down, a wrong api_base: it produced nothing), else 0."""
    return 1 if summary["failed_runs"] or summary["all_calls_failed"] else 0


if __name__ == "__main__":
    # While Dagster runs a job it gives SIGTERM whatever SIGINT does (dagster._utils.interrupts): with SIGINT left
    # ignored by a script, the job and its pool would ignore `kill` too. An interrupt in a run ends the job
    # (scripts/orchestrate.py JobInterrupted), as one between runs does.
    from benchwright.interrupts import exit_when_stopped

    exit_when_stopped(main, "the runs that ended are kept, and every call answered is in the LLM cache; the same "
                            "command goes on from there.")
