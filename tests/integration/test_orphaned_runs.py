"""A run killed with SIGKILL is marked failed by the next start-up (or the daemon's sensor), not left STARTED."""

import os
import signal
import subprocess
import sys
import time

import dagster as dg
from dagster._core.definitions.run_request import InstigatorType
from dagster._core.instance.ref import InstanceRef
from benchwright.paths import ROOT
from resources import prepare_dagster_home, process_is_writer, process_started_at
from sensors.runs import fail_orphaned_runs, orphaned_run_sensor

# The same two assets in the test and in the child: `scores` is eager on `answers`. The child materializes
# `answers` with a body that sleeps, long enough to be killed mid-run.
ASSETS = """
import os, time
import dagster as dg

@dg.asset
def answers():
    if os.environ.get("SLOW_ANSWERS"):
        time.sleep(120)

@dg.asset(deps=[answers], automation_condition=dg.AutomationCondition.eager())
def scores():
    pass
"""
CHILD = ASSETS + """
with dg.DagsterInstance.get() as instance:
    dg.materialize([answers], instance=instance)
"""
namespace: dict = {}
exec(compile(ASSETS, "assets_of_the_child", "exec"), namespace)
answers, scores = namespace["answers"], namespace["scores"]


def _wait_for(predicate, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def _scores_requested(instance, cursor=None) -> tuple[bool, object]:
    """Whether eager automation requests `scores` now (and the cursor for the next evaluation)."""
    result = dg.evaluate_automation_conditions(defs=[answers, scores], instance=instance, cursor=cursor)
    return result.get_num_requested(scores.key) == 1, result.cursor


def test_a_killed_run_is_marked_failed_a_live_one_is_left_alone_and_automation_moves_on(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    prepare_dagster_home(tmp_path)   # the instance the main job uses: run monitoring on
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SLOW_ANSWERS": "1"}
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(tmp_path))) as instance:
        assert instance.run_monitoring_enabled and instance.run_monitoring_max_resume_run_attempts == 0
        _, cursor = _scores_requested(instance)   # automation's first look: nothing there yet
        assert dg.materialize([answers], instance=instance).success   # answers updated: scores is due
        child = subprocess.Popen([sys.executable, "-c", CHILD], env=env, start_new_session=True)
        try:
            started = lambda: [r for r in instance.get_runs() if r.status == dg.DagsterRunStatus.STARTED]
            assert _wait_for(started), "the child run never started"
            # While its process lives, the run is not touched, and eager automation waits for it.
            assert fail_orphaned_runs(instance) == []
            requested, cursor = _scores_requested(instance, cursor)
            assert not requested
            os.killpg(child.pid, signal.SIGKILL)
            child.wait(30)
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
        [run] = started()
        # Killed: still STARTED for ever unless someone notices, and automation keeps waiting.
        assert not _scores_requested(instance, cursor)[0]

        result = orphaned_run_sensor(dg.build_sensor_context(instance=instance))
        assert isinstance(result, dg.SkipReason) and run.run_id in result.skip_message
        assert instance.get_run_by_id(run.run_id).status == dg.DagsterRunStatus.FAILURE
        [failure] = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_FAILURE)
        assert f"pid {child.pid}) is gone" in failure.message and "SIGKILL" in failure.message
        assert fail_orphaned_runs(instance) == []   # nothing left to mark

        # Automation no longer waits, and a fresh run of the same asset proceeds.
        assert _scores_requested(instance, cursor)[0]
        assert dg.materialize([answers, scores], instance=instance).success
        assert not instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))


def test_a_reused_pid_is_not_the_run_process():
    # This process started before "now": it may be the writer of something written now, not of
    # something written an hour before it started (its pid then belonged to a process that is gone).
    me = os.getpid()
    started = process_started_at(me)
    assert started is not None and abs(time.time() - started) < 3600
    assert process_is_writer(me, time.time())
    assert not process_is_writer(me, started - 3600)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert not process_is_writer(int(gone.stdout), time.time())


def test_prepare_dagster_home_adds_run_monitoring_and_keeps_an_operators_settings(tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    home = prepare_dagster_home(tmp_path)
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home))) as instance:
        assert instance.run_monitoring_enabled
        assert "MONITORING" in instance.get_required_daemon_types()
        assert (instance.run_monitoring_start_timeout_seconds, instance.run_monitoring_poll_interval_seconds) == (180, 60)
        # Daemon-launched runs are queued and run in parallel processes, one per core at most.
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        assert instance.get_concurrency_config().run_queue_config.max_concurrent_runs == os.cpu_count()
        # Steps log to the event log; no tail processes capture their raw output.
        assert type(instance.compute_log_manager).__name__ == "NoOpComputeLogManager"
    # An existing file (an older home) gains the sections and keeps what it had; an operator's own
    # sections are never overwritten.
    config = home / "dagster.yaml"
    config.write_text("telemetry:\n  enabled: false")
    prepare_dagster_home(tmp_path)
    assert config.read_text().startswith("telemetry:\n  enabled: false\nrun_monitoring:\n  enabled: true\n")
    own = ("run_monitoring:\n  enabled: false\nconcurrency:\n  runs:\n    max_concurrent_runs: 7\n"
           f"compute_logs:\n  module: dagster._core.storage.local_compute_log_manager\n  class: LocalComputeLogManager\n"
           f"  config:\n    base_dir: {tmp_path / 'logs'}\nretention:\n  sensor:\n    purge_after_days: 3\n")
    config.write_text(own)
    prepare_dagster_home(tmp_path)
    assert config.read_text() == own
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home))) as instance:
        assert not instance.run_monitoring_enabled
        assert instance.get_concurrency_config().run_queue_config.max_concurrent_runs == 7
        assert type(instance.compute_log_manager).__name__ == "LocalComputeLogManager"
        assert set(instance.get_tick_retention_settings(InstigatorType.SENSOR).values()) == {3}
