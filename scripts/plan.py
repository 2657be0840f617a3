"""Cost before you spend: the calls, tokens and dollars the main job would spend on what is missing or
stale, per benchmark, stage, model and judge, before anything is called; and the providers whose API key is
missing from the environment.

    python3.11 dev.py plan            # = .venv/bin/python scripts/plan.py
    python3.11 dev.py plan --keep     # keep the temporary copy to look at
    python3.11 dev.py plan --model M --judge J --limit 5   # the plan of that scoped `dev.py run`
    scripts/materialize_all.py --max-cost 5   # the main job plans first and does not start above $5

How: the home (warehouse, response cache, Dagster home, drop folders) is copied into a temporary folder (in
memory, /dev/shm, where there is one) and the part of the main job that calls models runs there in plan mode
(`LLMRunner` mode "plan"): the assets that call models and the assets they read (`plan_scope`), without the
separate checks. What Dagster finds missing or stale is decided by the main job's own loop
(`materialize_everything`), exactly as it would decide; but each asset it would run is called directly
(`DirectRuns`: Dagster's direct invocation, no run, no step events), and given a new data version that the
staleness resolver takes as a runless materialization's (no event is written), so the next level sees it as new,
as it would see a run's. Cache hits cost nothing; simulated models run (they are free); every
other cache miss is counted instead of called: prompt tokens by litellm's tokenizer for the model, completion
tokens from the model's own past answers in the cache (else the request's `max_tokens`, else 500), dollars
from litellm's price table. A placeholder answer of the expected length stands in, so what is built on it (the
judges' calls, the next turns of a chat) is counted too. Metrics, reports and the snapshot call nothing and are
not run. The real home is only read; the copy is deleted afterwards.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import socket
import sqlite3
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _copy_sqlite(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite file that other processes may be writing (its WAL included)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def copy_home(resources: dict, dagster_home: Path, target: Path) -> dict[str, Path]:
    """Copy what the main job reads into `target`; returns where each piece went."""
    from filelock import FileLock

    from benchwright.llm.runner import PLAN_COPY_MARKER
    from benchwright.paths import CACHE_FILE, WAREHOUSE_FILE, beside_warehouse

    warehouse = Path(resources["warehouse"].database)
    copied = {"warehouse": target / WAREHOUSE_FILE, "cache": target / CACHE_FILE,
              "dagster_home": target / "dagster_home"}
    target.mkdir(parents=True, exist_ok=True)  # a limited run's copy is a folder deeper (limited/N), made by no one else
    if warehouse.exists():
        with FileLock(f"{warehouse}.lock", timeout=resources["warehouse"].lock_timeout_s):  # no writer mid-copy
            for suffix in ("", ".wal"):
                if Path(f"{warehouse}{suffix}").exists():
                    shutil.copy2(f"{warehouse}{suffix}", f"{copied['warehouse']}{suffix}")
    cache = Path(resources["llm"].cache_path)
    if cache.exists():
        _copy_sqlite(cache, copied["cache"])
        # The plan's assets are called directly (DirectRuns), and Dagster gives every such call one run id: the
        # plan's ledger is the rows under it, so none may be there before it starts (a test's direct call, say).
        with sqlite3.connect(copied["cache"]) as con:
            con.execute("DELETE FROM ledger WHERE run_id = ?", (DIRECT_RUN_ID,))
            # Each asset's plan asks a model's mean completion tokens (providers.expected_tokens_out), which would
            # read every stored answer's row, texts and all: on the copy only, an index answers it.
            con.execute("CREATE INDEX IF NOT EXISTS plan_tokens_out ON responses(model, simulated, tokens_out)")
        con.close()
    if dagster_home.exists():
        for path in dagster_home.rglob("*"):
            if path.is_dir() or path.name.endswith(("-wal", "-shm")):
                continue
            destination = copied["dagster_home"] / path.relative_to(dagster_home)
            if path.suffix == ".db":
                _copy_sqlite(path, destination)
            else:
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, destination)
    drops = beside_warehouse(warehouse, "drops")
    if drops.exists():  # the drop folders' contents are inputs (observed sources) like the files they hold
        shutil.copytree(drops, target / "drops")
    (target / PLAN_COPY_MARKER).write_text("a copy made by scripts/plan.py; plan mode runs only here\n")
    return copied


def plan_scope() -> set[str]:
    """The assets the plan runs: those that call models and those they read (their ancestors). Metrics,
    reports, the snapshot and the separate checks call nothing and no model call reads them."""
    from definitions import defs
    from sensors.failed_calls import llm_asset_keys

    graph = defs.resolve_asset_graph()
    keys = set(llm_asset_keys())
    for key in list(keys):
        keys |= graph.get_ancestor_asset_keys(key)
    return {key.to_user_string() for key in keys}


DIRECT_RUN_ID = "EPHEMERAL"
"""The run id Dagster gives an asset called directly (`build_asset_context`): the plan's calls are ledgered under it."""


class DirectRuns:
    """Runs the main job's planned runs by calling their asset functions directly on the plan's copy, in this
    process: a Dagster run with its steps costs tens of milliseconds of event writes and set-up per asset, more
    than an asset in plan mode costs itself (bench/plan_speed.py). Each asset done gets a data version of its own
    (`unrecorded`), which the next level's staleness (Dagster's resolver, as in the main job) takes as a runless
    materialization's, so it sees the asset as changed, as it would a run's, without an event written (storing
    one cost ≈ 6 ms of CPU, the resolver's reads after it as much again)."""

    def __init__(self, instance, resources: dict, log=print):
        import dagster as dg

        from definitions import ASSETS

        self.instance, self.log = instance, log
        # Each call would otherwise validate and set up every resource anew; these need no set-up (plain
        # configuration objects), so they are handed to the assets as they are.
        self.resources = {name: dg.ResourceDefinition.hardcoded_resource(value) for name, value in resources.items()}
        self.assets = {key: definition for definition in ASSETS if isinstance(definition, dg.AssetsDefinition)
                       for key in definition.keys}
        # (asset key, partition or None) -> the data version of what this plan materialized, for the staleness of
        # the next levels (materialize_everything); nothing is written to the copy's event log.
        self.unrecorded: dict[tuple[dg.AssetKey, str | None], str] = {}

    def __call__(self, run: dict) -> dict:
        import uuid

        import dagster as dg

        from scripts.orchestrate import run_outcome

        success, materialized, checks = True, [], []
        ops = run["run_config"].get("ops", {})
        partition = None if run["partition_key"] is None else str(run["partition_key"])
        for name in run["keys"]:
            key = dg.AssetKey(name)
            try:
                # The key as planned (a MultiPartitionKey keeps its dimensions for the asset to read).
                with dg.build_asset_context(partition_key=run["partition_key"], resources=self.resources,
                                            instance=self.instance, asset_config=ops.get(name, {}).get("config")) \
                        as context:
                    context.log.setLevel(logging.ERROR)  # the steps' progress lines would bury the plan's own
                    result = self.assets[key](context)
            except Exception as error:  # counted as a failed run, as the main job counts one; the plan goes on
                self.log(f"  {name}{run['label']} failed in the plan: {type(error).__name__}: {error}")
                success = False
                continue
            result = result if isinstance(result, dg.MaterializeResult) else dg.MaterializeResult()  # no metadata
            materialized.append((name, result.metadata or {}))
            checks += [(name, check.check_name, check.passed, check.severity.value)
                       for check in result.check_results or []]
            self.unrecorded[(key, partition)] = f"plan-{uuid.uuid4().hex}"
        return run_outcome(DIRECT_RUN_ID, success, materialized, checks)


def _enter_counts(cache: Path, calls: dict[str, tuple[int, float]]) -> None:
    """The counting process's prompt tokens and dollars into the copy's cache, for each call the plan made (its
    ledger rows under the direct runs' id, and the placeholder answers): the plan's table is read from there."""
    with sqlite3.connect(cache) as con:
        con.execute("CREATE INDEX IF NOT EXISTS plan_ledger_key ON ledger(request_key)")  # the copy's only
        con.executemany("UPDATE ledger SET tokens_in = ?, cost_usd = ? WHERE run_id = ? AND request_key = ? "
                        "AND NOT cached", [(tokens, cost, DIRECT_RUN_ID, key) for key, (tokens, cost) in calls.items()])
        con.executemany("UPDATE responses SET tokens_in = ?, cost_usd = ? WHERE key = ?",
                        [(tokens, cost, key) for key, (tokens, cost) in calls.items()])
    con.close()


COPY_PREFIX = "benchwright-plan-"
COPY_OWNER = "PLAN_OWNER"  # in a copy's folder: "host:process id" of the plan that made it (none once kept)


def scratch_parent() -> Path:
    """Where copies go: memory (/dev/shm) when the system has it, as a copy is thrown away and the runs' SQLite
    commits there cost no disk sync; else the temporary folder."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())


def _scratch_folder() -> Path:
    scratch = Path(tempfile.mkdtemp(prefix=COPY_PREFIX, dir=scratch_parent()))
    (scratch / COPY_OWNER).write_text(f"{socket.gethostname()}:{os.getpid()}")
    return scratch


def remove_abandoned_copies(parent: Path) -> list[Path]:
    """Remove the copies whose plan is gone without its clean-up (killed by SIGKILL, or by the system when out of
    memory): in /dev/shm one would hold its memory until the machine restarts. A folder without its owner (being
    made now, kept by `--keep`, or older than the owner file), another host's (a temporary folder shared between
    containers) and one whose process is alive are left alone."""
    removed = []
    for folder in sorted(parent.glob(COPY_PREFIX + "*")):
        try:
            host, _, pid = (folder / COPY_OWNER).read_text().rpartition(":")
            pid = int(pid)
        except (OSError, ValueError):
            continue
        if host == socket.gethostname() and not _process_alive(pid):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def plan(home: Path, dagster_home: Path, keep: bool = False, log=print, scope=None,
         retry_given_up: bool = False) -> dict:
    """Run the model-calling part of the main job on a copy of the home in plan mode; returns the per-model
    table, the totals, the models litellm has no price for, the expected completion tokens used, and the
    providers whose API key is missing from the environment (`missing_keys`).

    `scope` (benchwright/scope.py, from `dev.py run`'s options) plans that scoped run: a limited one on a copy of
    its own home (`home` is then `<full home>/limited/N`) with the full home's response cache, as it would run.
    `retry_given_up` plans `--retry-given-up`: the given-up requests (benchwright/llm/failures.py) are counted and
    their partitions run."""
    import dagster as dg

    from benchwright.llm import ResponseCache
    from benchwright.llm.backends.plan import CountingProcess, counting_elsewhere
    from resources import default_resources
    from resources.llm import llm_with
    from resources.warehouse import Warehouse
    from scripts.orchestrate import materialize_everything

    from scripts.scope import scoped_resources

    real = default_resources(home=home)
    if scope is not None:
        real = scoped_resources(real, scope)  # a limited run reads and writes the full home's response cache
    saved = {name: os.environ.get(name) for name in ("BENCHWRIGHT_HOME", "DAGSTER_HOME", "BENCHWRIGHT_WAREHOUSE")}
    copy = None
    # The counts and prices in a process of their own, started first: its import of litellm and its tokenizing go
    # on while this one copies the home and runs the assets.
    counter = CountingProcess()
    counting_elsewhere(counter)
    for folder in remove_abandoned_copies(scratch_parent()):
        log(f"removed {folder}: the copy of a plan that was killed before it could remove it")
    scratch = _scratch_folder()
    # A limited run may write only to a folder named like its home (.../limited/N): so may its plan's copy.
    target = scratch if scope is None or scope.limit is None else scratch / "limited" / str(scope.limit)
    log(f"the copy: {scratch} ({'kept' if keep else 'removed at the end, also when stopped'})")
    try:
        copied = copy_home(real, dagster_home, target)
        os.environ.update({"BENCHWRIGHT_HOME": str(target), "DAGSTER_HOME": str(copied["dagster_home"])})
        os.environ.pop("BENCHWRIGHT_WAREHOUSE", None)  # the copy's warehouse is in the copy's home
        copy = default_resources(home=target, llm_mode="plan")
        # No other process opens the copy's warehouse: it stays open through the plan (Warehouse.hold_open).
        copy["warehouse"] = Warehouse(database=copy["warehouse"].database,
                                      snapshot_path=copy["warehouse"].snapshot_path, hold_open=True)
        copy["registry"] = real["registry"]
        if retry_given_up:
            copy["llm"] = llm_with(copy["llm"], retry_given_up=True)
        copied["dagster_home"].mkdir(parents=True, exist_ok=True)
        with dg.DagsterInstance.from_config(str(copied["dagster_home"])) as instance:
            # Only what calls models and what it reads, called directly in this process one asset at a time: with
            # no call to wait on, parallel runs would only share the cores. What would run is `log`'s
            # "materializing" lines.
            summary = materialize_everything(instance, copy, log=log, log_level="ERROR", observed_inputs=real,
                                             only=plan_scope(), workers=1, parallel_runs=1, scope=scope,
                                             execute=DirectRuns(instance, copy, log), launched_by="plan")
        entries = real["registry"].entries("models") + real["registry"].entries("judges")
        counted = counter.results([(entry.model, entry.api_base, entry.provider) for entry in entries])
        _enter_counts(copied["cache"], counted["calls"])
        cache = ResponseCache(str(copied["cache"]))
        try:
            rows = cache.ledger_by_model(summary["run_ids"])
        finally:
            cache.close()
        called = sorted({row["called"] for row in rows if row["calls"]})
        expected = {model: round(sum(r["tokens_out"] for r in rows if r["called"] == model)
                                 / sum(r["calls"] for r in rows if r["called"] == model)) for model in called}
        unpriced = [model for model in called if model in counted["unpriced"]]
        totals = {key: sum(row[key] for row in rows) for key in ("calls", "tokens_in", "tokens_out", "cost_usd",
                                                                 "cache_hits", "simulated")}
        return {"rows": rows, "totals": totals, "unpriced": unpriced, "expected_tokens_out": expected,
                "missing_keys": missing_api_keys(rows, real["registry"],
                                                 lambda *entry: counted["keys"].get(entry, ([], None))),
                "runs": summary["runs"], "failed_runs": summary["failed_runs"], "copy": scratch if keep else None}
    finally:
        counting_elsewhere(None)
        counter.close()
        if copy is not None:
            Warehouse.close_held(copy["warehouse"].database)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)
        else:
            (scratch / COPY_OWNER).unlink(missing_ok=True)  # kept for the person who asked: no plan removes it


def missing_api_keys(rows: list[dict], registry, lookup=None) -> dict[str, dict]:
    """Provider -> the environment variables litellm needs for it and does not find (`keys`) and the registry
    entries the plan would call through it (`entries`), for the models with planned calls (cache hits and the
    simulator need no key; nor does a self-hosted OpenAI-compatible server: `providers.missing_keys`).
    `lookup(model, api_base, provider)` -> (missing keys, provider) answers for an entry (the plan's counting
    process asks litellm there); by default litellm is asked here."""
    from benchwright.llm.providers import missing_keys, provider_of

    def asked_here(model: str, api_base: str | None, provider: str | None) -> tuple[list[str], str | None]:
        keys = missing_keys(model, api_base)
        return keys, provider_of(model, api_base, provider) if keys else None

    lookup = lookup or asked_here
    called = {row["called"] for row in rows if row["calls"]}
    missing: dict[str, dict] = {}
    for entry in registry.entries("models") + registry.entries("judges"):
        keys, provider = lookup(entry.model, entry.api_base, entry.provider) if entry.model in called else ([], None)
        if keys:
            found = missing.setdefault(provider, {"keys": [], "entries": []})
            found["keys"] += [key for key in keys if key not in found["keys"]]
            found["entries"].append(entry.slug)
    return dict(sorted(missing.items()))


def refusal(result: dict, max_cost_usd: float) -> str | None:
    """Why the main job must not start under this plan and a spending limit (None: it may start): the planned
    cost is above the limit, or runs of the plan failed, so the count after them is incomplete."""
    cost = result["totals"]["cost_usd"]
    if cost > max_cost_usd:
        return (f"the plan's cost ${cost:.4f} ({result['totals']['calls']} calls) is above --max-cost "
                f"${max_cost_usd:.4f}")
    if result["failed_runs"]:
        return (f"{result['failed_runs']} of the plan's {result['runs']} runs failed, so its cost "
                f"(${cost:.4f}) may be short of what the job would spend")
    return None


def print_plan(result: dict) -> None:
    """The plan as `dev.py plan` shows it: totals, the per-model table, expected lengths, unpriced models and
    the providers whose API key is missing."""
    import pandas as pd

    from benchwright.report import text_table

    rows = [row for row in result["rows"] if row["calls"] or row["cache_hits"] or row["simulated"]]
    totals = result["totals"]
    print(f"\nWould call: {totals['calls']} calls, {totals['tokens_in']:,} prompt tokens, "
          f"{totals['tokens_out']:,} completion tokens (expected), ${totals['cost_usd']:.4f}; "
          f"{totals['cache_hits']} answers from the cache, {totals['simulated']} simulated calls (free)")
    if rows:
        table = pd.DataFrame(rows)
        table["cost_usd"] = table["cost_usd"].round(4)
        print(text_table(table))
    for model, tokens in result["expected_tokens_out"].items():
        print(f"  {model}: {tokens} completion tokens expected per call (its mean in the cache, else max_tokens, "
              "else 500)")
    for model in result["unpriced"]:
        print(f"  {model}: not in litellm's price table, so its calls are counted but not priced (shown as $0)")
    if result["missing_keys"]:
        print("API keys missing from the environment (the calls to these providers would fail):")
        for provider, missing in result["missing_keys"].items():
            print(f"  {provider}: {', '.join(missing['keys'])} not set; needed by {', '.join(missing['entries'])}")
    if result["failed_runs"]:
        print(f"{result['failed_runs']} of {result['runs']} planned runs failed: the counts after them are incomplete")
    if result["copy"]:
        print(f"copy kept at {result['copy']}")


def check_cost(max_cost_usd: float, log=print, scope=None, retry_given_up: bool = False) -> int:
    """For the main job's --max-cost: plan the home's job in its scope (as `dev.py plan`, printed) and return 0
    when it may start, 2 (its message printed) when the plan costs more than the limit or could not count
    everything."""
    from benchwright.paths import benchwright_home
    from resources import prepare_dagster_home

    home = benchwright_home()
    log(f"--max-cost ${max_cost_usd:.4f}: planning first, on a copy of {home} (nothing is called)")
    result = plan(home, prepare_dagster_home(home), log=lambda line: log(f"  {line}"), scope=scope,
                  retry_given_up=retry_given_up)
    print_plan(result)
    reason = refusal(result, max_cost_usd)
    if reason:
        log(f"Not started: {reason}.")
        return 2
    log(f"Planned cost ${result['totals']['cost_usd']:.4f} is within --max-cost ${max_cost_usd:.4f}: starting")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy of the home (its path is printed)")
    from scripts.materialize_all import _at_least_one
    from scripts.scope import add_scope_arguments, scope_from_arguments

    add_scope_arguments(parser, _at_least_one)  # plan the run `dev.py run` would make with the same options
    parser.add_argument("--retry-given-up", action="store_true",
                        help="plan `dev.py run --retry-given-up`: count the given-up requests too")
    args = parser.parse_args(argv)
    # Dagster's notes that some APIs the code location uses are in beta say nothing about the plan.
    warnings.filterwarnings("ignore", message=r".*is currently in (beta|preview)")

    from benchwright.paths import benchwright_home
    from resources import prepare_dagster_home

    scope = scope_from_arguments(parser, args)  # exit 2 on a name not registered; --limit: its own home
    home = benchwright_home()
    dagster_home = prepare_dagster_home(home)
    print(f"planning on a copy of {home}: nothing is called and nothing in the home changes", flush=True)
    result = plan(home, dagster_home, keep=args.keep, log=lambda line: print(f"  {line}", flush=True), scope=scope,
                  retry_given_up=args.retry_given_up)
    print_plan(result)
    return 1 if result["failed_runs"] else 0


if __name__ == "__main__":
    # Stopped, the plan goes through its clean-up: the copy of the home (in memory, /dev/shm, where there is one) is
    # removed.
    from benchwright.interrupts import exit_when_stopped

    exit_when_stopped(main, "nothing was called, and the copy of the home is removed.")
