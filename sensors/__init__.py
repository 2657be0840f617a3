"""Sensors: what the Dagster daemon watches (the registry, drop folders, lost runs) and eager automation.

`TICK_INTERVAL_S` is how often the registry, automation and drop-folder sensors look:
BENCHWRIGHT_SENSOR_INTERVAL_S seconds (default 30). Dagster's daemon loops every 5 s, so a smaller value
does not make ticks come sooner than that; a larger one suits a deployment with many partitions.
"""

from benchwright.paths import count_setting

INTERVAL_VARIABLE = "BENCHWRIGHT_SENSOR_INTERVAL_S"


def tick_interval_s() -> int:
    """The sensors' minimum interval in seconds, from BENCHWRIGHT_SENSOR_INTERVAL_S (default 30)."""
    return count_setting(INTERVAL_VARIABLE, 30)


TICK_INTERVAL_S = tick_interval_s()
