"""What a step's log says while its LLM requests are answered."""

from __future__ import annotations

import time
from typing import Callable

FIRST_LINE_AFTER_S = 60.0


class Progress:
    """A few progress lines per batch, not one per slice of it: each line is a row in Dagster's event log, kept
    for every run (the full counts go in the step's materialization metadata). One line when calls start,
    one when the batch is done, and in between one after 1, 2, 4, 8 ... minutes, so a batch of any size
    says it is alive and a day-long one still logs only a dozen lines."""

    def __init__(self, callback: Callable[[str], None] | None, total: int, hits: int):
        self.callback = callback
        self.total = total
        self.done = hits
        self.hits = hits
        self.errors = 0
        self.started_at = time.monotonic()
        self.next_after_s = FIRST_LINE_AFTER_S
        self.last_done = -1
        self.bar = None  # a terminal progress bar of the calls (benchwright.progress_bars), set by the runner

    def emit(self) -> None:
        if self.callback is None or self.done == self.last_done:
            return
        self.last_done = self.done
        self.callback(
            f"LLM requests: {self.done}/{self.total} done ({self.hits} cache hits, {self.errors} errors)"
        )

    def note(self, text: str) -> None:
        """A line of its own (a batch sent, resumed or finished): a few per batch, never one per poll."""
        if self.callback is not None:
            self.callback(text)

    def tick(self, error: bool) -> None:
        self.done += 1
        self.errors += int(error)
        if self.bar is not None:
            self.bar.update(1)
        if time.monotonic() - self.started_at >= self.next_after_s:
            self.next_after_s *= 2
            self.emit()
