"""Dagster resources: the warehouse (DuckDB), the LLM client (litellm + response cache), the registry.

The home layout (what lives where under BENCHWRIGHT_HOME) is `benchwright.paths`; `default_resources()`
builds the resources on it, so a test or a second checkout just points BENCHWRIGHT_HOME elsewhere.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from benchwright.paths import CACHE_FILE, DAGSTER_FOLDER, ROOT, SNAPSHOT_FILE, benchwright_home, warehouse_location


# Dagster's own run monitoring, run by the daemon: a run stuck STARTING (its worker never came up) fails
# after the start timeout, one stuck CANCELING is marked canceled. The default run launcher cannot check
# a STARTED run's worker nor resume it (hence 0 resume attempts); runs killed mid-way are found from
# their process instead (sensors/runs.py).
RUN_MONITORING_YAML = """run_monitoring:
  enabled: true
  start_timeout_seconds: 180
  cancel_timeout_seconds: 180
  max_resume_run_attempts: 0
  poll_interval_seconds: 60
"""


# Steps log through Dagster's event log (context.log), which the UI shows; capturing raw stdout/stderr costs
# two `tail` and two Python watcher processes per step (per run when steps share a process) and leaves files
# behind every run (full size with two step processes: 258 s with it, 245 s without; bench/README.md).
NO_COMPUTE_LOGS_YAML = """compute_logs:
  module: dagster._core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager
"""


# Dagster's own retention of sensor, schedule and automation ticks (the daemon purges them). A sensor ticks every
# 30 s, about 2,900 ticks a day each: by default only skipped sensor ticks are ever purged (after 7 days).
# Runs are not ticks: old runs are deleted by `dev.py compact-runs` (scripts/compact_runs.py).
RETENTION_YAML = """retention:
  schedule:
    purge_after_days: 90
  sensor:
    purge_after_days:
      skipped: 7
      success: 30
      failure: 30
      started: 30
  auto_materialize:
    purge_after_days:
      skipped: 7
      success: 30
      failure: 30
      started: 30
"""


def run_queue_yaml() -> str:
    """Runs the daemon launches (sensors, automation, the UI) go in parallel through Dagster's run queue, each in
    its own process, one per core at most: a new judge's ten partitions do not start ten processes at once."""
    return f"concurrency:\n  runs:\n    max_concurrent_runs: {os.cpu_count() or 1}\n"


def prepare_dagster_home(home: Path) -> Path:
    """The Dagster instance folder under BENCHWRIGHT_HOME: telemetry off (no network here), run monitoring on,
    runs queued one per core, no capture of raw stdout/stderr, ticks purged after a while.

    An existing dagster.yaml keeps every setting it has; only missing `run_monitoring`, `concurrency`,
    `compute_logs` and `retention` sections are added. Plain text on purpose: dev.py calls this before the venv (and a YAML library) exists.
    """
    dagster_home = Path(os.environ.get("DAGSTER_HOME") or home / DAGSTER_FOLDER)
    dagster_home.mkdir(parents=True, exist_ok=True)
    config = dagster_home / "dagster.yaml"
    before = config.read_text(encoding="utf-8") if config.exists() else "telemetry:\n  enabled: false\n"
    text = before
    for section, yaml_text in (("run_monitoring", RUN_MONITORING_YAML), ("concurrency", run_queue_yaml()),
                               ("compute_logs", NO_COMPUTE_LOGS_YAML), ("retention", RETENTION_YAML)):
        if not re.search(rf"^{section}\s*:", text, flags=re.MULTILINE):
            text = (text if not text or text.endswith("\n") else text + "\n") + yaml_text
    if text != before or not config.exists():
        # Written aside and renamed: a process starting at the same time never reads half a file.
        partial = config.with_name(f".dagster.yaml.{os.getpid()}.tmp")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, config)
    return dagster_home


def default_resources(home: Path | None = None, llm_mode: str | None = None) -> dict:
    from resources.llm import LLMClient
    from resources.registry import Registry
    from resources.warehouse import Warehouse

    home = home or benchwright_home()
    registry = Registry(models_path=os.environ.get("BENCHWRIGHT_MODELS", str(ROOT / "registry" / "models.yaml")),
                        judges_path=os.environ.get("BENCHWRIGHT_JUDGES", str(ROOT / "registry" / "judges.yaml")),
                        panels_path=os.environ.get("BENCHWRIGHT_PANELS", ""),
                        providers_path=os.environ.get("BENCHWRIGHT_PROVIDERS", ""))
    return {
        "warehouse": Warehouse(database=str(warehouse_location(home)), snapshot_path=str(home / SNAPSHOT_FILE)),
        "llm": LLMClient(cache_path=str(home / CACHE_FILE),
                         mode=llm_mode or os.environ.get("BENCHWRIGHT_LLM_MODE", "live"),
                         providers_path=registry.providers_file()),
        "registry": registry,
    }


def process_alive(pid: int) -> bool:
    """Whether a process with this pid runs on this machine (used to tell a crashed writer from a live one)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, but someone else's
        return True
    return True


def process_started_at(pid: int) -> float | None:
    """Start time (epoch seconds, at most ~1 s early) of a running process, or None where /proc cannot tell."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
    except (OSError, StopIteration, ValueError):
        return None
    # Field 22 (start time in clock ticks since boot) counted after the command name, which may hold spaces.
    ticks = int(stat[stat.rindex(")") + 2:].split()[19])
    return boot + ticks / os.sysconf("SC_CLK_TCK")


# /proc's boot time has whole seconds and follows wall-clock adjustments: start times are compared loosely.
CLOCK_SLACK_S = 2.0


def process_is_writer(pid: int, wrote_at: float) -> bool:
    """Whether the process that wrote something with this pid at `wrote_at` (epoch seconds) still runs.

    A pid is reused once its process is gone: a process with that pid that started after the write
    (e.g. this very job, restarted in a container where pids repeat) is not the writer.
    """
    if not process_alive(pid):
        return False
    started = process_started_at(pid)
    return started is None or started <= wrote_at + CLOCK_SLACK_S

