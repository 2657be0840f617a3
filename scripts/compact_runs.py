"""Keep the Dagster home small: delete old runs, keeping every asset partition's latest state, then VACUUM.

Every Dagster run leaves its events in the instance's SQLite event log (one file per run under
`history/runs/`, plus an index of asset events). Runs older than `--keep-days` (or, with `--keep-runs N`, beyond the
newest N) are deleted through Dagster's own API (`DagsterInstance.delete_run`: the run and its events), except the runs that hold the latest
materialization or observation of some asset partition: those are what Dagster's staleness and the UI's
latest state read, so after compaction a no-op main job still runs nothing and calls no model. Runs that have
not finished are never deleted. Then the emptied per-run files are removed and the SQLite files VACUUMed.

The main job does this by itself (`keep_the_home_bounded`) once the home holds more than BENCHWRIGHT_KEEP_RUNS
runs (default 300; a quarter of that more than its last compaction left): the superseded runs beyond the newest
300 go, so the home's size is bounded by default.

    python3.11 dev.py compact-runs --keep-days 30
    .venv/bin/python scripts/compact_runs.py --keep-days 30     # with DAGSTER_HOME set
"""

from __future__ import annotations

import argparse
import datetime
import json
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


def compact_runs(instance: dg.DagsterInstance, keep_days: float, now: datetime.datetime | None = None,
                 keep_runs: int | None = None) -> dict:
    """Delete finished runs that hold no asset partition's latest event and were created more than `keep_days`
    ago or (with `keep_runs`) are not among the newest `keep_runs` runs; remove their emptied event-log files and
    VACUUM the instance's SQLite files. Returns the counts and bytes freed."""
    cutoff = (now or datetime.datetime.now(datetime.timezone.utc)) - datetime.timedelta(days=keep_days)
    keep = latest_event_runs(instance)
    old = [record.dagster_run.run_id for record in
           instance.get_run_records(filters=dg.RunsFilter(statuses=list(_FINISHED), created_before=cutoff))]
    if keep_runs is not None:  # newest first: beyond the newest keep_runs runs, every finished run is old
        newest = {record.dagster_run.run_id for record in instance.get_run_records(limit=keep_runs)}
        old += [record.dagster_run.run_id for record in instance.get_run_records(
            filters=dg.RunsFilter(statuses=list(_FINISHED))) if record.dagster_run.run_id not in newest]
        old = list(dict.fromkeys(old))
    deleted = [run_id for run_id in old if run_id not in keep]
    for run_id in deleted:
        instance.delete_run(run_id)
    freed = _remove_run_files_and_vacuum(instance, deleted)
    return {"deleted_runs": len(deleted), "kept_runs": len(old) - len(deleted), "bytes_freed": freed}


KEEP_RUNS_VARIABLE, KEEP_RUNS_DEFAULT = "BENCHWRIGHT_KEEP_RUNS", 300


def keep_the_home_bounded(instance: dg.DagsterInstance, keep_runs: int) -> dict | None:
    """What the main job does after its runs: once the instance holds `keep_runs` runs more than the last
    compaction left (at least `keep_runs` in all), delete the superseded ones beyond the newest `keep_runs` (never
    one holding an asset partition's latest state), so the Dagster home stops growing with every forced or repeated
    run. The check is one count query and a small file (`compaction.json` in the Dagster home: the runs the last
    compaction left, which may exceed `keep_runs` when many runs hold some partition's latest state); the compaction
    itself runs only when due. None when nothing was due."""
    runs = instance.get_runs_count()
    marker = Path(instance.root_directory or ".") / "compaction.json"
    try:
        left = int(json.loads(marker.read_text())["runs_left"])
    except (OSError, ValueError, KeyError, TypeError):
        left = 0
    if runs <= max(keep_runs, left + keep_runs // 4):
        return None
    result = compact_runs(instance, keep_days=30, keep_runs=keep_runs)
    if instance.root_directory:
        marker.write_text(json.dumps({"runs_left": instance.get_runs_count()}))
    return result


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
    parser.add_argument("--keep-runs", type=int, default=None,
                        help="also delete superseded runs beyond the newest N (the main job keeps "
                             f"{KEEP_RUNS_VARIABLE}, default {KEEP_RUNS_DEFAULT})")
    args = parser.parse_args(argv)
    if not os.environ.get("DAGSTER_HOME"):
        from benchwright.paths import benchwright_home
        from resources import prepare_dagster_home

        os.environ["DAGSTER_HOME"] = str(prepare_dagster_home(benchwright_home()))
    with dg.DagsterInstance.get() as instance:
        result = compact_runs(instance, args.keep_days, keep_runs=args.keep_runs)
    print(f"deleted {result['deleted_runs']} runs older than {args.keep_days:g} days, kept {result['kept_runs']} "
          f"old runs that hold an asset partition's latest state; {result['bytes_freed'] / 1e6:.1f} MB freed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
