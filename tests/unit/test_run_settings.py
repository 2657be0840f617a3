"""How many step processes and runs at once: settings refused by name when they are not a count, before any work."""

import pytest

from benchwright.paths import count_setting
from scripts import materialize_all
from scripts.orchestrate import default_parallel_runs, default_workers


class SimulatedOnly:
    """A registry of simulated entries only: the default is then one run at a time."""

    def entries(self, kind):
        return []


def test_counts_are_read_and_blank_means_the_default(monkeypatch):
    monkeypatch.setenv("BENCHWRIGHT_WORKERS", " 3 ")
    monkeypatch.setenv("BENCHWRIGHT_PARALLEL_RUNS", "5")
    assert default_workers() == 3 and default_parallel_runs(SimulatedOnly()) == 5
    monkeypatch.setenv("BENCHWRIGHT_WORKERS", "")
    monkeypatch.setenv("BENCHWRIGHT_PARALLEL_RUNS", " ")
    assert default_workers() == 1 and default_parallel_runs(SimulatedOnly()) == 1


@pytest.mark.parametrize("variable", ["BENCHWRIGHT_WORKERS", "BENCHWRIGHT_PARALLEL_RUNS"])
@pytest.mark.parametrize("text, message", [("abc", "whole number"), ("2.5", "whole number"), ("0", "at least 1"),
                                           ("-2", "at least 1")])
def test_a_setting_that_is_not_a_count_is_refused_by_name(monkeypatch, variable, text, message):
    monkeypatch.setenv(variable, text)
    with pytest.raises(ValueError, match=message) as refused:
        default_workers() if variable == "BENCHWRIGHT_WORKERS" else default_parallel_runs(SimulatedOnly())
    assert str(refused.value).startswith(variable) and str(refused.value).endswith(text if text[0] in "-0" else repr(text))


def test_an_unset_count_is_the_default(monkeypatch):
    monkeypatch.delenv("BENCHWRIGHT_WORKERS", raising=False)
    assert count_setting("BENCHWRIGHT_WORKERS", 7) == 7


@pytest.mark.parametrize("argv, env, words", [
    ([], {"BENCHWRIGHT_PARALLEL_RUNS": "abc"}, ["BENCHWRIGHT_PARALLEL_RUNS", "'abc'"]),
    ([], {"BENCHWRIGHT_WORKERS": "0"}, ["BENCHWRIGHT_WORKERS", "at least 1"]),
    (["--workers", "0"], {}, ["--workers", "at least 1"]),
    (["--parallel-runs", "many"], {}, ["--parallel-runs", "'many'"]),
])
def test_the_main_job_refuses_a_bad_count_before_it_starts(monkeypatch, tmp_path, capsys, argv, env, words):
    home = tmp_path / "home"
    monkeypatch.setenv("BENCHWRIGHT_HOME", str(home))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as stopped:
        materialize_all.main(argv)
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert all(word in error for word in words), error
    assert not home.exists()  # nothing was started: no home, no Dagster instance
