"""A run killed with SIGKILL is marked failed by the next start-up (or the daemon's sensor), not left STARTED."""

import os
import signal
import subprocess
import sys
import time

import dagster as dg
from dagster._core.instance.ref import InstanceRef
from resources import ROOT
from sensors.runs import fail_orphaned_runs, orphaned_run_sensor

# A run that sleeps inside its one op, long enough to be killed mid-run.
CHILD = """
import sys, time
import dagster as dg

@dg.op
def sleepy():
    time.sleep(120)

@dg.job
def slow_job():
    sleepy()

with dg.DagsterInstance.get() as instance:
    slow_job.execute_in_process(instance=instance)
"""


def _wait_for(predicate, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_a_killed_run_is_marked_failed_and_a_live_one_is_left_alone(tmp_path):
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    (tmp_path / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    child = subprocess.Popen([sys.executable, "-c", CHILD], env=env, start_new_session=True)
    try:
        with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(tmp_path))) as instance:
            started = lambda: [r for r in instance.get_runs() if r.status == dg.DagsterRunStatus.STARTED]
            assert _wait_for(started), "the child run never started"
            # While its process lives, the run is not touched.
            assert fail_orphaned_runs(instance) == []
            os.killpg(child.pid, signal.SIGKILL)
            child.wait(30)
            [run] = started()
            result = orphaned_run_sensor(dg.build_sensor_context(instance=instance))
            assert isinstance(result, dg.SkipReason) and run.run_id in result.skip_message
            assert instance.get_run_by_id(run.run_id).status == dg.DagsterRunStatus.FAILURE
            assert fail_orphaned_runs(instance) == []   # nothing left to mark
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
