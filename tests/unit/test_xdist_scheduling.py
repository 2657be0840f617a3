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
