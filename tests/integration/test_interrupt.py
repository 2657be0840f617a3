"""Stopping the main job: `kill` (SIGTERM) on a job a script started in the background, where the shell left
SIGINT ignored, stops it within seconds, not after its last run; the runs that ended are kept, and the same
command goes on from there. Dagster turns an interrupt during a run into that run's failure and would let the
next run start (scripts/orchestrate.py JobInterrupted), and while SIGINT is ignored it leaves SIGTERM ignored
after each run (scripts/materialize_all.py)."""

import os
import signal
import subprocess
import sys
import time

from benchwright.paths import ROOT
from tests.integration.conftest import SMALL_JUDGES, SMALL_MODELS
from tests.support.pipeline import write_registry

STOPPED = "Stopped (interrupted)"


def main_job(home, log) -> subprocess.Popen:
    env = {**os.environ, "BENCHWRIGHT_HOME": str(home), "DAGSTER_HOME": str(home / "dagster_home"),
           "BENCHWRIGHT_MODELS": str(home / "models.yaml"), "BENCHWRIGHT_JUDGES": str(home / "judges.yaml"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, str(ROOT / "scripts" / "materialize_all.py")], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # as `cmd &` in a script


def test_kill_stops_a_main_job_started_in_the_background_and_the_same_command_goes_on(tmp_path):
    home = tmp_path / "home"
    write_registry(home, SMALL_MODELS, SMALL_JUDGES)
    log_path = tmp_path / "first.log"
    with log_path.open("wb") as log:
        job = main_job(home, log)
        try:
            deadline = time.monotonic() + 120
            while "[sim-strong]" not in log_path.read_text(errors="replace"):  # the candidate's runs have begun
                assert job.poll() is None and time.monotonic() < deadline, log_path.read_text()[-3000:]
                time.sleep(0.2)
            job.send_signal(signal.SIGTERM)
            stopped_at = time.monotonic()
            status = job.wait(timeout=60)
        finally:
            if job.poll() is None:
                job.kill()
                job.wait()
    first = log_path.read_text(errors="replace")
    assert status == 130 and STOPPED in first, first[-3000:]
    assert time.monotonic() - stopped_at < 30 and "Runs:" not in first  # stopped, not run to the end
    assert "Traceback (most recent call last)" not in first.split("[sim-strong]")[0]

    again_path = tmp_path / "again.log"
    with again_path.open("wb") as log:
        status = main_job(home, log).wait(timeout=600)
    again = again_path.read_text(errors="replace")
    summary = next(line for line in again.splitlines() if line.startswith("Runs:"))
    assert status == 0 and "(0 failed)" in summary and "up to date (not run): 0," not in summary, summary
