"""Dagster resources: the warehouse (DuckDB), the LLM client (litellm + response cache), the registry.

`default_resources()` is the one place paths are decided: everything lives under BENCHWRIGHT_HOME
(default `.benchwright/` in the repo root), so a test or a second checkout just points it elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def benchwright_home() -> Path:
    return Path(os.environ.get("BENCHWRIGHT_HOME", ROOT / ".benchwright")).resolve()


def prepare_dagster_home(home: Path) -> Path:
    """The Dagster instance folder under BENCHWRIGHT_HOME, with telemetry off (no network here)."""
    dagster_home = Path(os.environ.get("DAGSTER_HOME") or home / "dagster_home")
    dagster_home.mkdir(parents=True, exist_ok=True)
    config = dagster_home / "dagster.yaml"
    if not config.exists():
        config.write_text("telemetry:\n  enabled: false\n")
    return dagster_home


def default_resources(home: Path | None = None, llm_mode: str | None = None) -> dict:
    from resources.llm import LLMClient
    from resources.registry import Registry
    from resources.warehouse import Warehouse

    home = home or benchwright_home()
    return {
        "warehouse": Warehouse(database=str(home / "warehouse.duckdb"),
                               snapshot_path=str(home / "analyst.duckdb")),
        "llm": LLMClient(cache_path=str(home / "llm_cache.sqlite3"),
                         mode=llm_mode or os.environ.get("BENCHWRIGHT_LLM_MODE", "live")),
        "registry": Registry(models_path=os.environ.get("BENCHWRIGHT_MODELS", str(ROOT / "registry" / "models.yaml")),
                             judges_path=os.environ.get("BENCHWRIGHT_JUDGES", str(ROOT / "registry" / "judges.yaml"))),
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
