"""Dagster's instance on PostgreSQL (deploy/dagster.yaml), driven the way a team runs it: the daemon alone
(sensors, eager automation, the run queue with two runs at once, each in its own process) builds the demo
graph from an empty instance, and leaves the warehouse rows the embedded main job leaves on the same registry,
with its runs and events in the PostgreSQL server, not in files under the home.

The registry is the small demo's (tests/integration/conftest.py: the baseline, the describer, one candidate and
one judge), the smallest on which every asset of the graph still runs: the daemon's time goes in its ticks and
in each run's own process, and a second judge added a sixth of its CPU and nothing the comparison needs."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import psycopg2

from benchwright.paths import ROOT
from resources import prepare_dagster_home
from scripts.compare_warehouses import compare
from scripts.orchestrate import materialize_everything
from tests.integration.conftest import SMALL_JUDGES, SMALL_MODELS
from tests.support.pipeline import resources_for, write_registry
from tests.support.postgres import postgres_server

RUN_WORKERS = 2
TICK_S = 5  # the daemon's own loop period: sensors cannot tick sooner
SETTLED_AFTER_S = 2 * TICK_S  # no run queued or in progress for two ticks: no tick is about to request one
TIMEOUT_S = 600


# The queue's daemon looks for queued runs every 5 s by default: each of the graph's levels waited for it.
DEQUEUE_EVERY_S = 1


def team_dagster_home(home: Path) -> Path:
    """deploy/dagster.yaml as a team would install it, with the run queue set to RUN_WORKERS, dequeued every
    DEQUEUE_EVERY_S."""
    dagster_home = home / "dagster_home"
    dagster_home.mkdir()
    text = (ROOT / "deploy" / "dagster.yaml").read_text()
    assert "max_concurrent_runs: 4" in text  # the shipped value, replaced below
    text = text.replace("max_concurrent_runs: 4", f"max_concurrent_runs: {RUN_WORKERS}")
    text += ("run_coordinator:\n  module: dagster.core.run_coordinator\n  class: QueuedRunCoordinator\n"
             f"  config:\n    dequeue_interval_seconds: {DEQUEUE_EVERY_S}\n")
    (dagster_home / "dagster.yaml").write_text(text)
    return dagster_home


def materialized_by_run(instance: dg.DagsterInstance, run_id: str) -> set[tuple[str, str | None]]:
    """(asset, partition or None) pairs a run materialized, from its own events: one query per finished run,
    where asking every asset's partitions at each poll cost this test more CPU than the daemon's ticks."""
    return {(entry.dagster_event.asset_key.to_user_string(), entry.dagster_event.partition)
            for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)}


def wait_until_built(instance: dg.DagsterInstance, expected: set[tuple[str, str | None]], daemon: subprocess.Popen,
                     log: Path) -> list:
    """Poll until every expected asset partition is materialized and no run has been queued or in progress for
    SETTLED_AFTER_S; return the runs. Fails with the daemon's log on a timeout, a failed run or a dead daemon."""
    deadline, quiet_since = time.monotonic() + TIMEOUT_S, None
    done, read_runs = set(), set()
    while True:
        assert daemon.poll() is None, f"the daemon exited:\n{log.read_text()[-4000:]}"
        runs = instance.get_run_records()
        failed = [r.dagster_run.run_id for r in runs if r.dagster_run.status == dg.DagsterRunStatus.FAILURE]
        assert not failed, f"runs failed: {failed}\n{log.read_text()[-4000:]}"
        busy = any(not r.dagster_run.is_finished for r in runs)
        for run in (r.dagster_run for r in runs if r.dagster_run.is_finished):
            if run.run_id not in read_runs:  # a finished run's events are final: read once
                done |= materialized_by_run(instance, run.run_id)
                read_runs.add(run.run_id)
        missing = expected - done
        if busy or missing:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= SETTLED_AFTER_S:
            return runs
        assert time.monotonic() < deadline, (f"not built after {TIMEOUT_S} s; missing {sorted(map(str, missing))[:10]}"
                                             f"\n{log.read_text()[-4000:]}")
        time.sleep(1)


def stop_group(daemon: subprocess.Popen) -> None:
    """Stop the daemon, then whatever of its process group is left (the gRPC code servers it started outlive
    a terminated daemon)."""
    try:
        os.killpg(daemon.pid, signal.SIGTERM)
        daemon.wait(timeout=60)
    finally:
        try:
            os.killpg(daemon.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        daemon.wait(timeout=10)


def most_at_once(runs: list) -> int:
    """The largest number of runs that were executing at the same moment (from their start and end times)."""
    edges = sorted([(r.start_time, 1) for r in runs if r.start_time] + [(r.end_time, -1) for r in runs if r.end_time],
                   key=lambda edge: (edge[0], edge[1]))  # an end before a start at the same instant
    level = peak = 0
    for _, step in edges:
        level += step
        peak = max(peak, level)
    return peak


def build_embedded(home: Path) -> dict:
    """The embedded main job on the same registry, on an instance of its own: the rows to compare with."""
    write_registry(home, SMALL_MODELS, SMALL_JUDGES)
    with dg.instance_for_test(set_dagster_home=False) as instance:
        return materialize_everything(instance, resources_for(home))


def test_the_daemon_on_a_postgres_instance_builds_the_rows_of_the_embedded_main_job(tmp_path, monkeypatch):
    embedded = tmp_path / "embedded"
    home = tmp_path / "home"
    write_registry(home, SMALL_MODELS, SMALL_JUDGES)
    dagster_home = team_dagster_home(home)
    monkeypatch.setenv("DAGSTER_HOME", str(dagster_home))
    prepare_dagster_home(home)  # adds monitoring, retention, no output capture; keeps deploy's run queue
    with postgres_server() as pg:
        pg_env = {f"BENCHWRIGHT_PG_{name}": value for name, value in {
            "HOST": pg["host"], "PORT": str(pg["port"]), "USER": pg["user"], "PASSWORD": pg["password"],
            "DB": pg["db_name"]}.items()}
        for name, value in pg_env.items():
            monkeypatch.setenv(name, value)
        env = {**os.environ, **pg_env, "DAGSTER_HOME": str(dagster_home), "BENCHWRIGHT_HOME": str(home),
               "BENCHWRIGHT_MODELS": str(home / "models.yaml"), "BENCHWRIGHT_JUDGES": str(home / "judges.yaml"),
               "BENCHWRIGHT_SENSOR_INTERVAL_S": str(TICK_S), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        env.pop("BENCHWRIGHT_WAREHOUSE", None)
        log = tmp_path / "daemon.log"
        with dg.DagsterInstance.get() as instance, log.open("w") as log_file:
            assert type(instance.run_storage).__name__ == "PostgresRunStorage"
            assert instance.get_concurrency_config().run_queue_config.max_concurrent_runs == RUN_WORKERS
            assert instance.run_coordinator.dequeue_interval_seconds == DEQUEUE_EVERY_S
            # In a process group of its own, so its code servers and run workers go with it at the end.
            daemon = subprocess.Popen([str(Path(sys.executable).parent / "dagster-daemon"), "run",
                                       "-w", str(ROOT / "workspace.yaml")], cwd=ROOT, env=env, stdout=log_file,
                                      stderr=subprocess.STDOUT, start_new_session=True)
            try:
                # The embedded job is built here, while the daemon works: most of the daemon's time goes in waiting
                # for its ticks and for each run's process to start, so the two overlap instead of adding up.
                built = build_embedded(embedded)
                assert built["failed_runs"] == 0
                expected = {(key, None if partition is None else str(partition))
                            for key, partition in built["materialized"]}
                runs = wait_until_built(instance, expected, daemon, log)
            finally:
                stop_group(daemon)
            # Two runs at a time, each in its own process, never more than the queue allows.
            assert most_at_once(runs) == RUN_WORKERS
            assert all(r.dagster_run.status == dg.DagsterRunStatus.SUCCESS for r in runs)
            # The main job on the same instance then finds nothing to run: the daemon's work is in PostgreSQL, built
            # from the inputs' versions the main job observes (the registry sensor recorded them).
            after = materialize_everything(instance, resources_for(home))
            assert after["runs"] == after["api_calls"] == after["failed_runs"] == 0
            assert after["up_to_date"] == len(expected)
            run_count = len(instance.get_run_records())
        with psycopg2.connect(host=pg["host"], port=pg["port"], user=pg["user"], dbname=pg["db_name"]) as con:
            with con.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM runs")
                assert cursor.fetchone()[0] == run_count
                cursor.execute("SELECT count(DISTINCT run_id) FROM event_logs "
                               "WHERE dagster_event_type = 'ASSET_MATERIALIZATION'")
                assert cursor.fetchone()[0] >= len(runs)
    assert not list(dagster_home.glob("**/*.db"))  # nothing went to SQLite files
    differing = [row for row in compare(resources_for(home)["warehouse"].database, resources_for(embedded)["warehouse"].database)
                 if row[1] < 0 or row[3] or row[4]]
    assert differing == []
