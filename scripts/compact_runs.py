"""Keep the Dagster home small: delete old runs, keeping every asset partition's latest state, then VACUUM.

Every Dagster run leaves its events in the instance's SQLite event log (one file per run under
`history/runs/`, plus an index of asset events). Runs older than `--keep-days` are deleted through Dagster's
own API (`DagsterInstance.delete_run`: the run and its events), except the runs that hold the latest
materialization or observation of some asset partition: those are what Dagster's staleness and the UI's
latest state read, so after compaction a no-op main job still runs nothing and calls no model. Runs that have
not finished are never deleted. Then the emptied per-run files are removed and the SQLite files VACUUMed.

    python3.11 dev.py compact-runs --keep-days 30
    .venv/bin/python scripts/compact_runs.py --keep-days 30     # with DAGSTER_HOME set
"""

from __future__ import annotations

import argparse
import datetime
import os
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import dagster as dg  # noqa: E402

PAGE = 1000
_FINISHED = (dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED)


def latest_event_runs(instance: dg.DagsterInstance) -> set[str]:
    """Runs holding the latest materialization or observation of some asset partition (or unpartitioned asset)."""
    keep: set[str] = set()
    for asset_key in instance.get_asset_keys():
        for fetch in (instance.fetch_materializations, instance.fetch_observations):
            seen: set[str | None] = set()
            cursor, has_more = None, True
            while has_more:  # newest first: the first record of each partition is its latest
                result = fetch(asset_key, limit=PAGE, cursor=cursor)
                for record in result.records:
                    if record.partition_key not in seen:
                        seen.add(record.partition_key)
                        if record.run_id:  # runless events (source observations) belong to no run
                            keep.add(record.run_id)
                cursor, has_more = result.cursor, result.has_more
    return keep


def compact_runs(instance: dg.DagsterInstance, keep_days: float, now: datetime.datetime | None = None) -> dict:
    """Delete finished runs created more than `keep_days` ago that hold no asset partition's latest event; remove
    their emptied event-log files and VACUUM the instance's SQLite files. Returns the counts and bytes freed."""
    cutoff = (now or datetime.datetime.now(datetime.timezone.utc)) - datetime.timedelta(days=keep_days)
    finished = dg.RunsFilter(statuses=list(_FINISHED), created_before=cutoff)
    keep = latest_event_runs(instance)
    old = [record.dagster_run.run_id for record in instance.get_run_records(filters=finished)]
    deleted = [run_id for run_id in old if run_id not in keep]
    for run_id in deleted:
        instance.delete_run(run_id)
    freed = _remove_run_files_and_vacuum(instance, deleted)
    return {"deleted_runs": len(deleted), "kept_runs": len(old) - len(deleted), "bytes_freed": freed}


def _remove_run_files_and_vacuum(instance: dg.DagsterInstance, deleted: list[str]) -> int:
    """The SQLite event log keeps one file per run, which `delete_run` empties but leaves in place: remove the
    deleted runs' files, then VACUUM every SQLite file of the instance (deleting rows does not shrink one).
    Other storages (Postgres) manage their own space: nothing to do there."""
    storage = instance.event_log_storage
    if not hasattr(storage, "path_for_shard") or instance.root_directory is None:
        return 0
    root = Path(instance.root_directory)
    before = folder_bytes(root)
    for run_id in deleted:
        Path(storage.path_for_shard(run_id)).unlink(missing_ok=True)
    for path in root.rglob("*.db"):
        with sqlite3.connect(path) as db:
            db.execute("VACUUM")
            # In WAL mode VACUUM writes the new file through the write-ahead log: fold it in and truncate it.
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return before - folder_bytes(root)


def folder_bytes(folder: Path) -> int:
    """Bytes of the files under a folder; a SQLite journal may vanish while the folder is walked."""
    total = 0
    for path in folder.rglob("*"):
        try:
            total += path.stat().st_size if path.is_file() else 0
        except FileNotFoundError:
            pass
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep-days", type=float, default=30,
                        help="keep every run created in the last N days (default 30); older runs are deleted "
                             "unless they hold an asset partition's latest materialization or observation")
    args = parser.parse_args(argv)
    if not os.environ.get("DAGSTER_HOME"):
        from benchwright.paths import benchwright_home
        from resources import prepare_dagster_home

        os.environ["DAGSTER_HOME"] = str(prepare_dagster_home(benchwright_home()))
    with dg.DagsterInstance.get() as instance:
        result = compact_runs(instance, args.keep_days)
    print(f"deleted {result['deleted_runs']} runs older than {args.keep_days:g} days, kept {result['kept_runs']} "
          f"old runs that hold an asset partition's latest state; {result['bytes_freed'] / 1e6:.1f} MB freed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
