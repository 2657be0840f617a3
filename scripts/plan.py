"""Cost before you spend: the calls, tokens and dollars the main job would spend on what is missing or
stale, per model and judge, before anything is called.

    python3.11 dev.py plan            # = .venv/bin/python scripts/plan.py
    python3.11 dev.py plan --keep     # keep the temporary copy to look at

How: the home (warehouse, response cache, Dagster home, drop folders) is copied into a temporary folder
and the main job runs there in plan mode (`LLMRunner` mode "plan"). What Dagster finds missing or stale
runs, exactly as the main job would decide; cache hits cost nothing; simulated models run (they are free);
every other cache miss is counted instead of called: prompt tokens by litellm's tokenizer for the model,
completion tokens from the model's own past answers in the cache (else the request's `max_tokens`, else
500), dollars from litellm's price table. A placeholder answer of the expected length stands in, so what
is built on it (the judges' calls, the next turns of a chat) is counted too. The real home is only read;
the copy is deleted afterwards.
"""

from __future__ import annotations

import argparse
import os
import shutil
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
    if warehouse.exists():
        with FileLock(f"{warehouse}.lock", timeout=resources["warehouse"].lock_timeout_s):  # no writer mid-copy
            for suffix in ("", ".wal"):
                if Path(f"{warehouse}{suffix}").exists():
                    shutil.copy2(f"{warehouse}{suffix}", f"{copied['warehouse']}{suffix}")
    cache = Path(resources["llm"].cache_path)
    if cache.exists():
        _copy_sqlite(cache, copied["cache"])
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


def plan(home: Path, dagster_home: Path, keep: bool = False, log=print) -> dict:
    """Run the main job on a copy of the home in plan mode; returns the per-model table, the totals, the
    models litellm has no price for, and the expected completion tokens used."""
    import dagster as dg

    from benchwright.llm import ResponseCache
    from benchwright.llm.runner import price_usd
    from resources import default_resources
    from scripts.orchestrate import materialize_everything

    real = default_resources(home=home)
    target = Path(tempfile.mkdtemp(prefix="benchwright-plan-"))
    saved = {name: os.environ.get(name) for name in ("BENCHWRIGHT_HOME", "DAGSTER_HOME", "BENCHWRIGHT_WAREHOUSE")}
    try:
        copied = copy_home(real, dagster_home, target)
        os.environ.update({"BENCHWRIGHT_HOME": str(target), "DAGSTER_HOME": str(copied["dagster_home"])})
        os.environ.pop("BENCHWRIGHT_WAREHOUSE", None)  # the copy's warehouse is in the copy's home
        copy = default_resources(home=target, llm_mode="plan")
        copy["registry"] = real["registry"]
        copied["dagster_home"].mkdir(parents=True, exist_ok=True)
        with dg.DagsterInstance.from_config(str(copied["dagster_home"])) as instance:
            # The runs' own console lines would bury the plan; what would run is `log`'s "materializing" lines.
            summary = materialize_everything(instance, copy, log=log, log_level="ERROR", observed_inputs=real)
        cache = ResponseCache(str(copied["cache"]))
        try:
            rows = cache.ledger_by_model(summary["run_ids"])
        finally:
            cache.close()
        called = sorted({row["called"] for row in rows if row["calls"]})
        expected = {model: round(sum(r["tokens_out"] for r in rows if r["called"] == model)
                                 / sum(r["calls"] for r in rows if r["called"] == model)) for model in called}
        unpriced = [model for model in called if price_usd(model, 1, 1) is None]
        totals = {key: sum(row[key] for row in rows) for key in ("calls", "tokens_in", "tokens_out", "cost_usd",
                                                                 "cache_hits", "simulated")}
        return {"rows": rows, "totals": totals, "unpriced": unpriced, "expected_tokens_out": expected,
                "runs": summary["runs"], "failed_runs": summary["failed_runs"], "copy": target if keep else None}
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if not keep:
            shutil.rmtree(target, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy of the home (its path is printed)")
    args = parser.parse_args(argv)
    # Dagster's notes that some APIs the code location uses are in beta say nothing about the plan.
    warnings.filterwarnings("ignore", message=r".*is currently in (beta|preview)")

    import pandas as pd

    from benchwright.paths import benchwright_home
    from benchwright.report import text_table
    from resources import prepare_dagster_home

    home = benchwright_home()
    dagster_home = prepare_dagster_home(home)
    print(f"planning on a copy of {home}: nothing is called and nothing in the home changes", flush=True)
    result = plan(home, dagster_home, keep=args.keep, log=lambda line: print(f"  {line}", flush=True))
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
    if result["failed_runs"]:
        print(f"{result['failed_runs']} of {result['runs']} planned runs failed: the counts after them are incomplete")
    if result["copy"]:
        print(f"copy kept at {result['copy']}")
    return 1 if result["failed_runs"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
