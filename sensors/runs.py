"""Runs whose process is gone are marked failed, so nothing waits on them for ever.

A run killed with SIGKILL (or by the out-of-memory killer) cannot report its own end: it stays STARTED
in the instance, and eager automation may keep waiting for it. Dagster's run monitoring (switched on in
dagster.yaml by `resources.prepare_dagster_home`) fails runs stuck STARTING and ends runs stuck
CANCELING, but it can check a STARTED run's worker only where the run launcher supports it (Kubernetes,
ECS, Docker), not for the default launcher that runs on this machine. So we use what every run records:
the pid of the process that started it (its RUN_START event). An in-flight run whose process no longer
exists, or whose pid now belongs to a process started later, is reported through Dagster's own API
(`report_run_failed`; a run being canceled is `report_run_canceled`). The main job does this at
start-up; with the daemon running, `orphaned_run_sensor` does it every minute.
"""

from __future__ import annotations

import dagster as dg

from resources import process_is_writer

IN_FLIGHT = [dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING]


def _run_process(instance: dg.DagsterInstance, run_id: str) -> tuple[int, float] | None:
    """(pid, time) of the event that tells which process executes the run: its start event, or, before
    the run started, its latest event (the launching process). None when no event names a process."""
    for of_type in (dg.DagsterEventType.RUN_START, None):
        records = instance.get_records_for_run(run_id, of_type=of_type, limit=1, ascending=False).records
        entry = records[0].event_log_entry if records else None
        if entry is not None and entry.dagster_event is not None and entry.dagster_event.pid is not None:
            return entry.dagster_event.pid, entry.timestamp
    return None


def fail_orphaned_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark in-flight runs whose process is gone as failed (canceled, if they were being canceled);
    returns their run ids."""
    ended = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=IN_FLIGHT)):
        process = _run_process(instance, run.run_id)
        if process is None or process_is_writer(*process):
            continue
        message = (f"the run's process (pid {process[0]}) is gone, killed without a chance to report (SIGKILL, "
                   "out of memory?): marked {} so that automation and later runs do not wait for it")
        if run.status == dg.DagsterRunStatus.CANCELING:
            instance.report_run_canceled(run, message.format("canceled"))
        else:
            instance.report_run_failed(run, message.format("failed"))
        ended.append(run.run_id)
    return ended


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
