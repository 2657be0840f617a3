"""One main job at a time per home (benchwright/home_lock.py): a second one says who holds the home, waits, then
runs; a holder killed outright frees the home at once."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

from benchwright.home_lock import OWNER_FILE, one_main_job_at_a_time
from benchwright.paths import ROOT


def _wait_for(condition, timeout_s: float = 10) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_second_main_job_says_who_holds_the_home_waits_then_runs(tmp_path):
    said, ran = [], []
    first_in, first_may_end = threading.Event(), threading.Event()

    def job(name: str, hold: threading.Event | None = None) -> None:
        with one_main_job_at_a_time(tmp_path, say=said.append, poll_s=0.01):
            ran.append(name)
            if hold is not None:
                first_in.set()
                hold.wait(10)

    first = threading.Thread(target=job, args=("first", first_may_end))
    first.start()
    assert first_in.wait(10)
    second = threading.Thread(target=job, args=("second",))
    second.start()
    _wait_for(lambda: said)
    assert f"pid {os.getpid()}" in said[0] and "waiting for it to end" in said[0]
    time.sleep(0.1)
    assert ran == ["first"]  # still waiting
    first_may_end.set()
    first.join(10)
    second.join(10)
    assert ran == ["first", "second"] and said[1].startswith("The other main job ended")
    assert not (tmp_path / OWNER_FILE).exists()


HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from benchwright.home_lock import one_main_job_at_a_time
    with one_main_job_at_a_time(Path(sys.argv[1])):
        print("holding", flush=True)
        time.sleep(60)
""")


def test_a_holder_killed_outright_frees_the_home(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "holding"
        said = []
        waiting = threading.Thread(target=lambda: one_main_job_at_a_time(tmp_path, say=said.append,
                                                                         poll_s=0.01).__enter__())
        waiting.daemon = True
        waiting.start()
        _wait_for(lambda: said)
        assert f"pid {holder.pid}" in said[0]
        holder.send_signal(signal.SIGKILL)
        _wait_for(lambda: len(said) == 2)  # the system freed the lock with the process
        assert said[1].startswith("The other main job ended")
    finally:
        holder.kill()
        holder.wait()
