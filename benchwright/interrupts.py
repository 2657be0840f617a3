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
from types import FrameType
from typing import NoReturn


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
