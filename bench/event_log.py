"""Benchmark: how much the Dagster home grows per main-job run, and what compaction gives back. In one run.

Runs the demo graph (the main job's graph on the bundled sample, every registered model and judge, simulated)
in a temporary home whose `dagster.yaml` is the one `prepare_dagster_home` writes (SQLite storage, as a user's
home): cold, then N forced re-runs (every asset again, 0 calls). After each run it reports what the run added
under the Dagster home: bytes and files, and the event-log rows and their bytes by kind (log lines, asset
materializations, step events, ...) with the chattiest log lines, so the biggest contributors are visible.
Then it compacts the home (`scripts/compact_runs.py`, keeping each asset partition's latest materialization
run), reports the size again, and checks that a following no-op run makes 0 runs and 0 calls.

    .venv/bin/python bench/event_log.py              # cold + 2 forced re-runs
    .venv/bin/python bench/event_log.py --reruns 4
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import tempfile
from collections import Counter
from pathlib import Path

from _common import emit

from scripts.compact_runs import compact_runs, folder_bytes

# Events are grouped as a reader of the event log sees them: log lines are events without a Dagster event type.
LOG = "LOG (context.log)"
STEP_EVENTS = {"STEP_START", "STEP_SUCCESS", "STEP_FAILURE", "STEP_OUTPUT", "STEP_INPUT", "STEP_WORKER_STARTING",
               "STEP_WORKER_STARTED", "RESOURCE_INIT_STARTED", "RESOURCE_INIT_SUCCESS", "HANDLED_OUTPUT",
               "LOADED_INPUT", "STEP_EXPECTATION_RESULT", "ASSET_MATERIALIZATION_PLANNED"}


def kind_of(event_type: str | None) -> str:
    if event_type is None:
        return LOG
    if event_type in STEP_EVENTS:
        return "step events"
    if event_type.startswith("RUN_") or event_type.startswith("PIPELINE_"):
        return "run events"
    return event_type


def home_usage(dagster_home: Path) -> dict:
    """Files (not SQLite's transient journals) and bytes (with them) under the Dagster home; every event-log row once (the per-run SQLite shards, not the
    index's mirror of asset events) by kind, with bytes; log lines by their text with digits blanked."""
    files = [p for p in dagster_home.rglob("*") if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))]
    journal_bytes = folder_bytes(dagster_home) - sum(p.stat().st_size for p in files)
    rows, row_bytes, log_lines = Counter(), Counter(), Counter()
    for path in files:
        if path.suffix != ".db" or path.name in ("index.db", "runs.db", "schedules.db"):
            continue
        with sqlite3.connect(path) as db:
            if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'event_logs'").fetchone():
                continue
            for event_type, event in db.execute("SELECT dagster_event_type, event FROM event_logs"):
                kind = kind_of(event_type)
                rows[kind] += 1
                row_bytes[kind] += len(event)
                if event_type is None:
                    message = json.loads(event).get("user_message", "")
                    log_lines[re.sub(r"\d+", "#", message)[:60]] += 1
    by_file = Counter()
    for path in files:
        by_file[file_kind(path)] += path.stat().st_size
    by_file["SQLite journals"] = journal_bytes
    return {"files": len(files), "bytes": sum(p.stat().st_size for p in files) + journal_bytes, "rows": rows,
            "row_bytes": row_bytes, "log_lines": log_lines, "by_file": by_file}


def file_kind(path: Path) -> str:
    if path.name in ("index.db", "runs.db", "schedules.db"):
        return path.name
    return "per-run event files" if path.suffix == ".db" else "other files"


def added(after: dict, before: dict) -> dict:
    return {"files": after["files"] - before["files"], "bytes": after["bytes"] - before["bytes"],
            "rows": after["rows"] - before["rows"], "row_bytes": after["row_bytes"] - before["row_bytes"],
            "log_lines": after["log_lines"] - before["log_lines"],
            "by_file": {kind: after["by_file"][kind] - before["by_file"][kind] for kind in after["by_file"]}}


def describe(name: str, growth: dict, runs: int) -> str:
    total_rows = sum(growth["rows"].values())
    kinds = ", ".join(f"{kind} {n:,} ({growth['row_bytes'][kind] / 1e6:.2f} MB)"
                      for kind, n in growth["rows"].most_common())
    files = ", ".join(f"{kind} {size / 1e6:+.2f} MB" for kind, size in growth["by_file"].items())
    chatty = "; ".join(f"{n}× “{text}”" for text, n in growth["log_lines"].most_common(5))
    return (f"{name}: {runs} runs, +{growth['bytes'] / 1e6:.1f} MB, +{growth['files']} files, +{total_rows:,} event "
            f"rows: {kinds}\n    by file: {files}\n    chattiest log lines: {chatty}")


def measure(reruns: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="benchwright-evlog-") as tmp:
        home = Path(tmp)
        dagster_home = home / "dagster_home"
        os.environ.update({"BENCHWRIGHT_HOME": str(home), "DAGSTER_HOME": str(dagster_home)})
        import dagster as dg

        from resources import prepare_dagster_home
        from scripts.orchestrate import materialize_everything
        from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

        prepare_dagster_home(home)
        write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
        resources = resources_for(home)
        per_run = []
        with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
            before = home_usage(dagster_home)
            for number in range(reruns + 1):
                summary = materialize_everything(instance, resources, force=number > 0)
                assert summary["failed_runs"] == 0 and (number == 0 or summary["api_calls"] == 0)
                after = home_usage(dagster_home)
                growth = added(after, before)
                per_run.append({"name": "cold" if number == 0 else f"forced {number}", "runs": summary["runs"],
                                **growth})
                print(describe(per_run[-1]["name"], growth, summary["runs"]), flush=True)
                before = after
            compacted = compact_runs(instance, keep_days=0)
            after_compaction = home_usage(dagster_home)
            noop = materialize_everything(instance, resources)
    forced = per_run[1:]
    mean_bytes = sum(r["bytes"] for r in forced) / len(forced)
    mean_files = sum(r["files"] for r in forced) / len(forced)
    mean_rows = sum(sum(r["rows"].values()) for r in forced) / len(forced)
    mean_logs = sum(r["rows"][LOG] for r in forced) / len(forced)
    summary = (f"per forced run of the demo ({forced[0]['runs']} runs): +{mean_bytes / 1e6:.1f} MB, +{mean_files:.0f} "
               f"files, +{mean_rows:,.0f} event rows of which {mean_logs:,.0f} log lines; home after "
               f"{reruns + 1} runs {before['bytes'] / 1e6:.1f} MB / {before['files']} files → after compaction "
               f"{after_compaction['bytes'] / 1e6:.1f} MB / {after_compaction['files']} files "
               f"({compacted['deleted_runs']} runs deleted, {compacted['kept_runs']} kept); no-op after compaction: "
               f"{noop['runs']} runs, {noop['api_calls']} calls")
    assert noop["runs"] == 0 and noop["api_calls"] == 0, "a no-op after compaction must run nothing"
    return {"summary": summary, "mean_forced_bytes": mean_bytes, "mean_forced_files": mean_files,
            "mean_forced_rows": mean_rows, "mean_forced_log_rows": mean_logs,
            "home_bytes": before["bytes"], "home_files": before["files"],
            "compacted_bytes": after_compaction["bytes"], "compacted_files": after_compaction["files"],
            **compacted}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reruns", type=int, default=2, help="forced re-runs after the cold run")
    args = parser.parse_args()
    emit("Demo: Dagster home growth per run and compaction", **measure(args.reruns))


if __name__ == "__main__":
    main()
