"""Killing a real subprocess at a chosen moment (crash tests)."""

import os
import signal
import subprocess
import time
from collections.abc import Callable


def kill_when(child: subprocess.Popen, ready: Callable[[], bool], timeout_s: float = 60) -> None:
    """SIGKILL `child` as soon as `ready()` holds; fail with its stderr if it exits or stalls first."""
    try:
        deadline = time.monotonic() + timeout_s
        while not ready():
            assert child.poll() is None, child.stderr.read().decode(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "the child did not reach the kill point in time"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=10)
        if child.stderr:
            child.stderr.close()
    assert child.returncode == -signal.SIGKILL
