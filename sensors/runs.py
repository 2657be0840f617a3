"""Runs whose process is gone are marked failed, so nothing waits on them for ever.

A run killed with SIGKILL (or by the out-of-memory killer) cannot report its own end: it stays STARTED
in the instance, and eager automation may keep waiting for it. Dagster's run monitoring can only check a
run worker's health where the run launcher supports it (Kubernetes, ECS, Docker), not for the default
launcher that runs on this machine. So we use what every run records: the process id in its events.
An in-flight run whose last event came from a process that no longer exists is reported failed through
Dagster's own API (`report_run_failed`). The main job does this at start-up; with the daemon running,
`orphaned_run_sensor` does it every minute.
"""

from __future__ import annotations

import os

import dagster as dg

from resources import process_alive

IN_FLIGHT = [dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING]


def fail_orphaned_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark in-flight runs whose process is gone as failed; returns their run ids."""
    failed = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=IN_FLIGHT)):
        records = instance.get_records_for_run(run.run_id, limit=1, ascending=False).records
        event = records[0].event_log_entry.dagster_event if records else None
        pid = event.pid if event is not None else None
        if pid is None or pid == os.getpid() or process_alive(pid):
            continue
        instance.report_run_failed(run, f"the run's process ({pid}) is gone (killed?): marked failed so that "
                                        "automation and later runs do not wait for it")
        failed.append(run.run_id)
    return failed


@dg.sensor(
    name="orphaned_run_sensor",
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Marks runs whose process is gone (killed with SIGKILL, out of memory) as failed, so eager "
                "automation does not wait on them for ever.",
)
def orphaned_run_sensor(context: dg.SensorEvaluationContext):
    failed = fail_orphaned_runs(context.instance)
    return dg.SkipReason(f"marked {len(failed)} orphaned runs failed: {failed}" if failed else "no orphaned runs")
