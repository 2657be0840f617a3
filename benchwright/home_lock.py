"""One main job at a time per home.

Two main jobs on one home (two terminals, a `dev.py run` started while the demo still runs) end right: the cache's
claims keep a call from being paid twice, and the warehouse's writer lock orders their writes. But the second
repeats every run of the first, writing the same rows again, and its summary counts work the first one did. So a
main job holds the home's lock (`filelock`, a `flock` the system frees when its process dies, however it dies) for as
long as it runs; a second one says who holds it and waits, then starts and runs only what is still missing. A
limited run (`--limit`) has a home of its own, so its own lock. The Dagster daemon and the UI's runs do not take
it: Dagster's run queue orders those.
"""

from __future__ import annotations

import os
import socket
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from filelock import FileLock, Timeout

LOCK_FILE = "main_job.lock"
OWNER_FILE = "main_job.owner"  # who holds the lock, for the message of the one who waits


@contextmanager
def one_main_job_at_a_time(home: Path, say: Callable[[str], None] = print,
                           poll_s: float = 0.2) -> Iterator[None]:
    """Hold `home`'s main-job lock while the block runs; when another process holds it, say so and wait (Ctrl-C
    stops the waiting)."""
    home.mkdir(parents=True, exist_ok=True)
    lock, owner = FileLock(str(home / LOCK_FILE)), home / OWNER_FILE
    try:
        lock.acquire(timeout=0)
    except Timeout:
        try:
            holder = owner.read_text().strip() or "its process is not known"
        except OSError:
            holder = "its process is not known"
        say(f"Another main job is running on this home ({holder}); waiting for it to end, then this one runs what "
            f"is still missing (Ctrl-C stops waiting).")
        waited = time.monotonic()
        lock.acquire(poll_interval=poll_s)
        say(f"The other main job ended after {time.monotonic() - waited:.0f} s of waiting: starting.")
    try:
        owner.write_text(f"pid {os.getpid()} on {socket.gethostname()}, started at {time.strftime('%H:%M:%S')}\n")
        yield
    finally:
        owner.unlink(missing_ok=True)
        lock.release()
