"""Steps in parallel processes change nothing but the wall time: the demo graph run with two step processes
leaves the same warehouse rows, compared table by table in SQL, and makes the same LLM calls as the shared
demo (every step in one process, tests/integration/conftest.py) — no call is made twice."""

import dagster as dg

from scripts.compare_warehouses import compare
from scripts.orchestrate import materialize_everything
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

STEP_EVENTS = {dg.DagsterEventType.STEP_START, dg.DagsterEventType.STEP_SUCCESS, dg.DagsterEventType.STEP_FAILURE}


def _most_steps_at_once(instance: dg.DagsterInstance) -> tuple[int, int]:
    """(most steps running at the same moment in any run, distinct step processes) from the event log."""
    most, pids = 0, set()
    for record in instance.get_run_records():
        edges = []
        for entry in instance.all_logs(record.dagster_run.run_id, of_type=STEP_EVENTS):
            started = entry.dagster_event.event_type == dg.DagsterEventType.STEP_START
            edges.append((entry.timestamp, 0 if not started else 1))
            pids.add(entry.dagster_event.pid)
        running = 0
        for _, started in sorted(edges):  # at equal times an end sorts before a start
            running += 1 if started else -1
            most = max(most, running)
    return most, len(pids)


def test_parallel_steps_leave_the_rows_of_one_process(shipped_demo, tmp_path):
    serial = shipped_demo["first"]
    assert _most_steps_at_once(shipped_demo["instance"]) == (1, 1)

    home = tmp_path / "parallel"
    write_registry(home, SHIPPED_MODELS, SHIPPED_JUDGES)
    resources = resources_for(home)
    with dg.instance_for_test(set_dagster_home=False) as instance:
        parallel = materialize_everything(instance, resources, workers=2)
        most, processes = _most_steps_at_once(instance)
        assert most == 2 and processes > 2, (most, processes)  # two at a time, in processes of their own

    assert parallel["failed_runs"] == serial["failed_runs"] == 0
    assert parallel["runs"] == serial["runs"]
    assert parallel["api_calls"] == serial["api_calls"] > 0
    differing = [row for row in compare(resources["warehouse"].database, shipped_demo["warehouse"].database)
                 if row[1] < 0 or row[3] or row[4]]
    assert differing == []
    assert sorted(map(str, parallel["check_failures"])) == sorted(map(str, serial["check_failures"]))
