"""`dev.py demo`, `run`, `ui` and `web` wait for the process doing the work (`dev.run_through_ctrl_c`). `kill`
(SIGTERM) on dev.py reaches dev.py alone, unlike Ctrl-C in a terminal: it must reach the child as well, not end
dev.py and leave the job calling its providers, unseen."""

import os
import signal
import subprocess
import sys
import time

from benchwright.paths import ROOT


def test_kill_on_dev_py_stops_its_child_and_says_stopped(tmp_path):
    started = tmp_path / "child.pid"
    child = f"import os, time; open({str(started)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    code = (f"import sys, os, dev; sys.exit(dev.run_through_ctrl_c([sys.executable, '-c', {child!r}], "
            "dict(os.environ), stopped_status=130))")
    waiter = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not (started.exists() and started.read_text()):
            assert waiter.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        waiter.send_signal(signal.SIGTERM)  # to dev.py's process only, as `kill PID` does
        status = waiter.wait(timeout=20)
    finally:
        if waiter.poll() is None:
            os.killpg(waiter.pid, signal.SIGKILL)
    assert status == 130  # stopped, as a Ctrl-C'd job says
    child_pid = int(started.read_text())
    assert not os.path.exists(f"/proc/{child_pid}")  # ended, and reaped by dev.py's wait

