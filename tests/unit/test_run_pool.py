"""The main job's pool of run processes follows the environment of the moment it is made."""

import os

from scripts.orchestrate import run_pool


def _home() -> str | None:
    return os.environ.get("BENCHWRIGHT_HOME")


def test_a_pool_made_after_the_home_changed_runs_in_the_new_home(monkeypatch, tmp_path):
    # Every pool child is forked from Python's one forkserver; `dev.py plan` switches BENCHWRIGHT_HOME to its
    # copy of the home after an earlier run may have started that server under the first home.
    monkeypatch.setenv("BENCHWRIGHT_HOME", str(tmp_path / "first"))
    with run_pool(1) as pool:
        assert pool.submit(_home).result(timeout=120) == str(tmp_path / "first")
    monkeypatch.setenv("BENCHWRIGHT_HOME", str(tmp_path / "copy"))
    with run_pool(1) as pool:
        assert pool.submit(_home).result(timeout=120) == str(tmp_path / "copy")
