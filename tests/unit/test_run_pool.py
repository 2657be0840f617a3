"""The main job's pool of run processes follows the environment of the moment it is made, and its processes have
litellm imported only when a registered model calls a provider."""

import os
import sys

from scripts.orchestrate import run_pool


def _home_and_litellm() -> tuple[str | None, bool]:
    return os.environ.get("BENCHWRIGHT_HOME"), "litellm" in sys.modules


def test_a_pool_made_after_the_home_changed_runs_in_the_new_home(monkeypatch, tmp_path):
    # Every pool child is forked from Python's one forkserver; `dev.py plan` switches BENCHWRIGHT_HOME to its
    # copy of the home after an earlier run may have started that server under the first home.
    monkeypatch.setenv("BENCHWRIGHT_HOME", str(tmp_path / "first"))
    with run_pool(1) as pool:
        assert pool.submit(_home_and_litellm).result(timeout=120) == (str(tmp_path / "first"), True)
    monkeypatch.setenv("BENCHWRIGHT_HOME", str(tmp_path / "copy"))
    # Only simulated models: the forkserver (started anew for the new home) leaves litellm out.
    with run_pool(1, with_litellm=False) as pool:
        assert pool.submit(_home_and_litellm).result(timeout=120) == (str(tmp_path / "copy"), False)
