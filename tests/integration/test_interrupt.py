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
from tests.integration.test_pipeline_loopback import simulated_reply
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline import SHIPPED_MODELS, pick, write_registry

STOPPED = "Stopped (interrupted)"
ONE_BENCHMARK = ("--benchmark", "creation")  # a scope: what is tested is the same in every benchmark's runs


def main_job(home, log, *args: str, **settings: str) -> subprocess.Popen:
    env = {**os.environ, "BENCHWRIGHT_HOME": str(home), "DAGSTER_HOME": str(home / "dagster_home"),
           "BENCHWRIGHT_MODELS": str(home / "models.yaml"), "BENCHWRIGHT_JUDGES": str(home / "judges.yaml"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT), **settings}
    return subprocess.Popen([sys.executable, str(ROOT / "scripts" / "materialize_all.py"), *args], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # as `cmd &` in a script


def kill_when(job: subprocess.Popen, log_path, ready, wait_s: float = 180) -> tuple[int, float]:
    """Once `ready()` (the job still running), `kill` (SIGTERM) the job's process: its exit status and the seconds
    it took to stop."""
    try:
        deadline = time.monotonic() + wait_s
        while not ready():
            assert job.poll() is None and time.monotonic() < deadline, log_path.read_text(errors="replace")[-3000:]
            time.sleep(0.2)
        job.send_signal(signal.SIGTERM)
        stopped_at = time.monotonic()
        status = job.wait(timeout=120)
        return status, time.monotonic() - stopped_at
    finally:
        if job.poll() is None:
            job.kill()
            job.wait()


def test_kill_stops_a_main_job_started_in_the_background_and_the_same_command_goes_on(tmp_path):
    home = tmp_path / "home"
    write_registry(home, SMALL_MODELS, SMALL_JUDGES)
    log_path = tmp_path / "first.log"
    with log_path.open("wb") as log:
        job = main_job(home, log, *ONE_BENCHMARK)
        # once the candidate's runs have begun
        status, waited = kill_when(job, log_path, lambda: "[sim-strong]" in log_path.read_text(errors="replace"))
    first = log_path.read_text(errors="replace")
    assert status == 130 and STOPPED in first, first[-3000:]
    assert waited < 30 and "Runs:" not in first  # stopped, not run to the end
    assert "Traceback (most recent call last)" not in first.split("[sim-strong]")[0]

    again_path = tmp_path / "again.log"
    with again_path.open("wb") as log:
        status = main_job(home, log, *ONE_BENCHMARK).wait(timeout=600)
    again = again_path.read_text(errors="replace")
    summary = next(line for line in again.splitlines() if line.startswith("Runs:"))
    assert status == 0 and "(0 failed)" in summary and "up to date (not run): 0," not in summary, summary


def test_kill_stops_the_runs_in_flight_in_the_pool_too(tmp_path):
    """Runs of a stage go side by side in a pool of processes (a model that calls a provider: 8 at once by default).
    `kill` reaches the main job's process only, not the pool's (Ctrl-C in a terminal reaches them all): the pool's
    run in flight must stop as well, not go on calling the provider to its end after the job said it stopped."""
    writers = ("http-writer-a", "http-writer-b")
    # One call at a time, each answered after 2 s: a writer's run of Creation's 15 generations takes 30 s.
    with OpenAIServer(latency_s=2, reply=simulated_reply, max_lifetime_s=300) as srv:
        models = {**pick(SHIPPED_MODELS, "sim-baseline", "sim-describer"),
                  **{slug: {"model": f"openai/{slug}", "api_base": srv.base_url, "role": "candidate",
                            "display_name": slug, "max_concurrency": 1} for slug in writers}}
        home = tmp_path / "home"
        write_registry(home, models, SMALL_JUDGES)
        log_path = tmp_path / "job.log"
        with log_path.open("wb") as log:
            job = main_job(home, log, *ONE_BENCHMARK, BENCHWRIGHT_PARALLEL_RUNS="2")
            # once both writers' runs call the provider
            status, waited = kill_when(job, log_path, lambda: all(srv.count(model=slug) for slug in writers))
        text = log_path.read_text(errors="replace")
        assert status == 130 and STOPPED in text, text[-3000:]
        assert waited < 15, f"the job took {waited:.0f} s to stop"
        calls = srv.total
        time.sleep(3)
        assert srv.total == calls, "the provider was still called after the job stopped"


def test_a_second_main_job_on_the_home_waits_for_the_first_and_kill_stops_its_waiting(tmp_path):
    """Two main jobs on one home would both run every run (the second repeating the first's work): the second waits
    (benchwright/home_lock.py), saying for whom, and runs nothing while it waits."""
    from benchwright.home_lock import one_main_job_at_a_time

    home = tmp_path / "home"
    write_registry(home, SMALL_MODELS, SMALL_JUDGES)
    log_path = tmp_path / "second.log"
    said = []
    with one_main_job_at_a_time(home, say=said.append), log_path.open("wb") as log:
        job = main_job(home, log, *ONE_BENCHMARK)
        status, _ = kill_when(job, log_path, lambda: "Another main job is running" in log_path.read_text())
    second = log_path.read_text(errors="replace")
    assert said == [] and f"(pid {os.getpid()} on" in second
    assert status == 130 and "Runs:" not in second and "[sim-strong]" not in second, second[-3000:]
    assert not list((home / "dagster_home").glob("storage/*"))  # no run was made
