"""The suite's xdist scheduler chains behind a costly session fixture only the modules that take it."""

from tests.support.xdist_scheduling import SharedFixtureScheduling, _shared_fixture_of, fixtures_taken


def test_a_fixture_is_used_when_a_function_takes_it_not_when_a_name_or_docstring_says_it():
    source = '''
"""Reads the main_job's home."""
import pytest

@pytest.fixture
def demo(shipped_demo, /, *, tmp_path):
    return shipped_demo

def test_the_main_job_refuses_a_bad_entry(demo, monkeypatch):
    assert "main_job" in str(demo)
'''
    assert fixtures_taken(source) == {"shipped_demo", "tmp_path", "demo", "monkeypatch"}


def test_modules_are_chained_behind_the_fixture_they_take_and_no_other():
    split = SharedFixtureScheduling._split_scope  # uses no state of the scheduler
    assert split(None, "tests/integration/test_main_job.py::test_a") == "main_job"
    assert split(None, "tests/integration/test_add_a_benchmark.py::test_b") == "main_job"
    assert split(None, "tests/integration/test_pipeline.py::test_c[x-y]") == "shipped_demo"
    assert split(None, "tests/browser/test_pages.py::test_e") == "shipped_demo"  # through a fixture of its own
    for module in ("test_sensors", "test_plan", "test_dagster_home"):  # each starts from a copy of one small home
        assert split(None, f"tests/integration/{module}.py::test_f") == "small_demo"
    # Only names a test "..._main_job" or mentions it: a module of its own, free to go to the other worker.
    for module in ("tests/integration/test_postgres_instance.py", "tests/integration/test_failed_calls.py",
                   "tests/unit/test_run_settings.py"):
        assert split(None, f"{module}::test_d") == module
    assert _shared_fixture_of("tests/conftest.py") is None  # where shipped_demo is defined, not used
    assert _shared_fixture_of("tests/integration/conftest.py") is None


def test_the_longest_units_come_first_and_the_rest_keep_their_order():
    from types import SimpleNamespace

    from tests.support.xdist_scheduling import LONGEST_FIRST, longest_first, unit_of

    ids = ["tests/browser/test_pages.py::test_a", "tests/integration/test_dagster_home.py::test_b",
           "tests/integration/test_postgres_instance.py::test_c", "tests/unit/test_ratings.py::test_d",
           "tests/integration/test_pipeline.py::test_e", "tests/unit/test_agreement.py::test_f"]
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in ids]
    longest_first(items)
    units = [unit_of(item.nodeid) for item in items]
    assert sorted(units[:4]) == ["shipped_demo", "shipped_demo", "small_demo",
                                 "tests/integration/test_postgres_instance.py"]
    assert units[:4] == sorted(units[:4], key=LONGEST_FIRST.index)
    # Not named: after them, in collection order.
    assert [item.nodeid for item in items[4:]] == ["tests/unit/test_ratings.py::test_d",
                                                    "tests/unit/test_agreement.py::test_f"]


def test_a_unit_of_one_test_is_followed_by_the_last_unit_not_the_next_long_pole():
    from collections import OrderedDict

    scheduler = SharedFixtureScheduling.__new__(SharedFixtureScheduling)  # the queue and assignments alone
    class Node:  # what the scheduler asks of a worker
        shutting_down = False

        def shutdown(self):
            pass

        def send_runtest_some(self, indexes):
            pass

    node = Node()
    scheduler.workqueue = OrderedDict([("long_one", {"l::a": False}), ("long_two", {"m::a": False, "m::b": False,
                                       "m::c": False}), ("short", {"s::a": False})])
    scheduler.assigned_work, scheduler.registered_collections = {}, {node: ["l::a", "m::a", "m::b", "m::c", "s::a"]}
    scheduler.log = lambda *args: None
    scheduler._assign_work_unit(node)  # the first unit: one test, which waits for a next one
    scheduler._reschedule(node)
    assert list(scheduler.assigned_work[node]) == ["long_one", "short"]
    assert list(scheduler.workqueue) == ["long_two"]  # still first for the next worker that frees up
    # A unit of several tests takes the next in order once two are left.
    scheduler.assigned_work[node] = {"m": {"m::a": True, "m::b": False, "m::c": False}}
    scheduler.workqueue = OrderedDict([("next", {"n::a": False}), ("last", {"z::a": False})])
    scheduler.registered_collections[node] += ["n::a", "z::a"]
    scheduler._reschedule(node)
    assert list(scheduler.workqueue) == ["last"]
