"""Ctrl-C and `kill` where a library turns them into something else.

A Python signal handler raises wherever the main thread is at that moment. Two places there swallow it: an event
loop, where it may end only a background task (the LLM runner cancels its whole batch instead: runner.py), and a
DuckDB query, which DuckDB stops and reports as a RuntimeError "Query interrupted", the original exception
(Dagster's interruption of a step, KeyboardInterrupt) gone. Either way the interrupt is then raised again here, as
the handler in place raises it, so that a step fails as interrupted and the main job stops rather than counting one
more failed run and going on.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import NoReturn

INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


def raise_interrupt(signum: int = signal.SIGINT, frame: FrameType | None = None) -> NoReturn:
    """Raise what the handler in place for `signum` raises (Dagster's interruption during a step, else Python's
    KeyboardInterrupt); KeyboardInterrupt when the handler only notes it, or is none set in Python."""
    handler = signal.getsignal(signum)
    if callable(handler):
        handler(signum, frame)
    raise KeyboardInterrupt


def is_interrupted_query(error: BaseException) -> bool:
    """Whether DuckDB stopped a query because of a signal (the form DuckDB 2.0's Python client reports it in)."""
    return isinstance(error, RuntimeError) and "Query interrupted" in str(error)


@contextmanager
def interrupts_deferred(first: Callable[[], None] = lambda: None) -> Iterator[list]:
    """Ctrl-C and `kill` noted while the block runs and raised right after it, as the handlers in place raise them:
    a block that must not be cut in the middle (an export's renames), or one that ends itself early (`first` is
    called at the first interrupt: the LLM runner cancels its batch). Yields the signals noted. A second interrupt
    is raised at once: the person insists. Only in the main thread, where Python runs its signal handlers, and only
    handlers set in Python are replaced (an ignored signal stays ignored). Masking the signals instead would not do:
    the kernel hands a process's signal to any thread that does not mask it."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    previous = {signum: signal.getsignal(signum) for signum in INTERRUPTS}
    previous = {signum: handler for signum, handler in previous.items() if callable(handler)}
    received: list[tuple[int, FrameType | None]] = []

    def note(signum: int, frame: FrameType | None) -> None:
        received.append((signum, frame))
        if len(received) > 1:
            previous[signum](signum, frame)
        first()

    for signum in previous:
        signal.signal(signum, note)
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if received:  # also one that came as the block ended: it is not lost
        raise_interrupt(*received[0])


def exit_when_stopped(main: Callable[[], int], stopped: str) -> NoReturn:
    """Run a command's `main` so that Ctrl-C and `kill` stop it through its clean-up (its `finally` blocks) and it
    exits with status 130, printing `stopped`. Python's usual SIGINT handler for both: a script that starts the
    command in the background leaves SIGINT ignored, and SIGTERM would end the process at once."""
    for signum in INTERRUPTS:
        signal.signal(signum, signal.default_int_handler)
    try:
        status = main()
    except KeyboardInterrupt:
        print(f"\nStopped (interrupted): {stopped}", flush=True)
        status = 130
    raise SystemExit(status)
