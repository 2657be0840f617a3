"""Steps in parallel processes and runs of a level at once change nothing but the wall time: the demo graph
run with two step processes per run and two runs at a time leaves the same warehouse rows, compared table by
table in SQL, makes the same LLM calls and reports the same summary as the shared small demo (one run at a
time, every step in the run's process, tests/integration/conftest.py) but for its runs, of which there are more
(a stage of one run splits where its assets are independent) — no call is made twice, no asset partition runs
twice. The small demo's registry is the smallest on which every asset runs, and a level still has several runs
(the baseline's, the describer's and the candidate's generations), so it shows both as the whole demo did, for
half its CPU.
One build checks both, to keep the suite's time."""

import dagster as dg
from dagster._core.instance.ref import InstanceRef

from resources import prepare_dagster_home
from scripts.compare_warehouses import compare
from scripts.orchestrate import materialize_everything
from tests.integration.conftest import SMALL_JUDGES, SMALL_MODELS, copy_small_demo
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


def _most_runs_at_once(instance: dg.DagsterInstance) -> int:
    edges = []
    for record in instance.get_run_records():
        edges += [(record.start_time, 1), (record.end_time, 0)]
    running = most = 0
    for _, started in sorted(edges):  # at equal times an end sorts before a start
        running += 1 if started else -1
        most = max(most, running)
    return most


def test_parallel_steps_and_runs_leave_the_rows_and_summary_of_one_at_a_time(small_demo, tmp_path, monkeypatch):
    serial = small_demo["cold"]
    # The small demo's runs, read from a copy of its home (the original is never opened: other modules copy it).
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    reference = copy_small_demo(small_demo, tmp_path / "serial")
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(prepare_dagster_home(reference)))) as instance:
        assert _most_steps_at_once(instance) == (1, 1)

    home = tmp_path / "parallel"
    write_registry(home, SMALL_MODELS, SMALL_JUDGES)
    resources = resources_for(home)
    with dg.instance_for_test(set_dagster_home=False) as instance:
        parallel = materialize_everything(instance, resources, workers=2, parallel_runs=2)
        most, processes = _most_steps_at_once(instance)
        assert most == 2 and processes > 2, (most, processes)  # two at a time, in processes of their own
        assert _most_runs_at_once(instance) == 2  # e.g. two candidates' generations together

    assert parallel["failed_runs"] == serial["failed_runs"] == 0
    # A stage of fewer runs than may go at once splits where its assets are independent (the datasets by benchmark).
    assert parallel["runs"] > serial["runs"]
    assert parallel["api_calls"] == serial["api_calls"] > 0
    differing = [row for row in compare(resources["warehouse"].database, resources_for(reference)["warehouse"].database)
                 if row[1] < 0 or row[3] or row[4]]
    assert differing == []
    # The summary is merged in the runs' planned order; the split runs list their assets in another order, and the
    # checks of one run come in the order its two step processes finished them. Every asset partition once.
    for field in ("up_to_date", "cache_hits", "failed_checks"):
        assert parallel[field] == serial[field], field
    assert sorted(parallel["materialized"], key=str) == sorted(serial["materialized"], key=str)
    assert len(set(parallel["materialized"])) == len(parallel["materialized"])
    by_check = lambda check: (check["asset"], check["check"], str(check["partition"]))  # noqa: E731
    assert sorted(parallel["checks"], key=by_check) == sorted(serial["checks"], key=by_check)
    assert sorted(parallel["check_failures"]) == sorted(serial["check_failures"])


def test_runs_go_in_parallel_by_default_only_once_a_model_calls_a_provider(tmp_path, monkeypatch):
    from scripts.orchestrate import default_parallel_runs

    monkeypatch.delenv("BENCHWRIGHT_PARALLEL_RUNS", raising=False)
    write_registry(tmp_path, SHIPPED_MODELS, SHIPPED_JUDGES)
    assert default_parallel_runs(resources_for(tmp_path)["registry"]) == 1  # the simulator: nothing to wait on
    real = {"gpt": {"model": "openai/gpt-4o-mini", "role": "candidate"}}
    write_registry(tmp_path, {**SHIPPED_MODELS, **real}, SHIPPED_JUDGES)
    assert default_parallel_runs(resources_for(tmp_path)["registry"]) == 8
    monkeypatch.setenv("BENCHWRIGHT_PARALLEL_RUNS", "3")
    assert default_parallel_runs(resources_for(tmp_path)["registry"]) == 3
