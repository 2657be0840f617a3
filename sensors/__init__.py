"""Sensors: what the Dagster daemon watches (the registry, drop folders, lost runs) and eager automation.

`TICK_INTERVAL_S` is how often the registry, automation and drop-folder sensors look:
BENCHWRIGHT_SENSOR_INTERVAL_S seconds (default 30). Dagster's daemon loops every 5 s, so a smaller value
does not make ticks come sooner than that; a larger one suits a deployment with many partitions.
"""

import os

INTERVAL_VARIABLE = "BENCHWRIGHT_SENSOR_INTERVAL_S"


def tick_interval_s() -> int:
    """The sensors' minimum interval in seconds, from BENCHWRIGHT_SENSOR_INTERVAL_S (default 30)."""
    text = os.environ.get(INTERVAL_VARIABLE, "").strip() or "30"
    try:
        seconds = int(text)
    except ValueError:
        raise ValueError(f"{INTERVAL_VARIABLE} must be a whole number of seconds, not {text!r}") from None
    if seconds < 1:
        raise ValueError(f"{INTERVAL_VARIABLE} must be at least 1 second, not {seconds}")
    return seconds


TICK_INTERVAL_S = tick_interval_s()
