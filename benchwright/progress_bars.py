"""Progress bars with an ETA for the main job in a terminal: one per level of the asset graph (its runs) and
one per LLM step (its requests). Off unless the main job asked for them (``BARS_VARIABLE``, set by
scripts/materialize_all.py only when its stdout is a terminal) and stdout is a terminal here too, so CI, logs
and tests see exactly the lines they saw before. Lines printed while a bar is shown go through ``write``, which
keeps the bar below them."""

from __future__ import annotations

import os
import sys
from typing import Any

BARS_VARIABLE = "BENCHWRIGHT_PROGRESS_BARS"


def shown() -> bool:
    return os.environ.get(BARS_VARIABLE) == "1" and sys.stdout.isatty()


class _NoBar:
    """What a bar is when bars are off: every call does nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


# A bar appears only for what takes longer than this: a step of a second needs no ETA, and Dagster's own log lines
# (on stderr, which we do not route) would otherwise land on the bar's line more often.
DELAY_S = 2.0


def bar(total: int, description: str, unit: str, initial: int = 0, delay: float = DELAY_S):
    """A tqdm bar on stdout when bars are shown (``leave=False``: it disappears when done, the log lines stay),
    else one that does nothing."""
    if not shown() or total <= 0:
        return _NoBar()
    from tqdm import tqdm  # imported only for a terminal

    return tqdm(total=total, initial=initial, desc=description, unit=unit, leave=False, file=sys.stdout,
                dynamic_ncols=True, mininterval=0.5, delay=delay)


def write(line: str) -> None:
    """Print a line; above the bars when they are shown."""
    if shown():
        from tqdm import tqdm

        tqdm.write(line, file=sys.stdout)
    else:
        print(line, flush=True)
