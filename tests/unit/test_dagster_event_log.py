"""The SQLite event log keeps its connections (resources/dagster_event_log.py): the same events land in the same
files, each database is opened once per process (not once per statement), a forked child never uses its parent's
engines, the number kept is bounded, and a removed file is never written through an old engine."""

import multiprocessing
import sqlite3
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.storage.event_log.sqlite import sqlite_event_log

from resources import dagster_event_log
from resources.dagster_event_log import KEPT_DATABASES, _kept, keep_event_log_connections

keep_event_log_connections()


@dg.asset
def numbers() -> None:
    pass


@dg.asset_check(asset=numbers)
def numbers_ok() -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=True)


@pytest.fixture
def instance(tmp_path):
    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        yield instance


def _events_in_files(instance: dg.DagsterInstance, run_id: str) -> int:
    path = Path(instance.event_log_storage.path_for_shard(run_id))
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM event_logs").fetchone()[0]


def test_events_land_in_the_runs_file_and_the_index_with_each_database_opened_once(instance, monkeypatch):
    opened = []  # every engine built, by Dagster's storage or by ours
    for module in (dagster_event_log, sqlite_event_log):
        original = module.create_engine
        monkeypatch.setattr(module, "create_engine",
                            lambda *a, original=original, **k: opened.append(str(a[0])) or original(*a, **k))
    result = dg.materialize([numbers, numbers_ok], instance=instance)
    storage = instance.event_log_storage
    events = storage.get_logs_for_run(result.run_id)
    assert len(events) > 10 and _events_in_files(instance, result.run_id) == len(events)
    assert instance.get_latest_materialization_event(numbers.key) is not None  # read from the index
    # the run's file opened once by Dagster (it creates the file) and once for the kept engine, however many events
    # were written (Dagster alone: an engine per statement); the index once at most
    run_file = storage.conn_string_for_shard(result.run_id)
    assert opened.count(run_file) == 2 and opened.count(storage.conn_string_for_shard("index")) <= 2
    assert set(_kept(storage).engines) == {result.run_id, "index"}


def _child_engines(storage, queue) -> None:
    queue.put(len(_kept(storage).engines))


def test_a_forked_child_does_not_use_its_parents_engines(instance):
    dg.materialize([numbers], instance=instance)
    storage = instance.event_log_storage
    assert _kept(storage).engines
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_engines, args=(storage, queue))
    child.start()
    child.join(30)
    assert queue.get(timeout=5) == 0 and child.exitcode == 0


def test_the_engines_kept_are_bounded_and_the_index_stays(instance):
    for _ in range(KEPT_DATABASES + 3):
        dg.materialize([numbers], instance=instance)
    kept = _kept(instance.event_log_storage).engines
    assert len(kept) == KEPT_DATABASES and "index" in kept


def test_a_removed_file_is_opened_again_not_written_through_the_old_engine(instance):
    result = dg.materialize([numbers], instance=instance)
    storage = instance.event_log_storage
    with storage.run_connection(result.run_id):
        pass
    old = _kept(storage).engines[result.run_id]
    Path(storage.path_for_shard(result.run_id)).unlink()
    with storage.run_connection(result.run_id):
        pass
    assert _kept(storage).engines[result.run_id] is not old


def test_the_instances_end_closes_its_engines(tmp_path, monkeypatch):
    closed = []
    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        dg.materialize([numbers], instance=instance)
        storage = instance.event_log_storage
        engines = list(_kept(storage).engines.values())
        for engine in engines:
            monkeypatch.setattr(engine, "dispose", lambda engine=engine: closed.append(engine))
    assert engines and closed == engines
    assert "_benchwright_kept" not in storage.__dict__
