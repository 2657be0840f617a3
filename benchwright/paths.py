"""The home layout: where every file of a Benchwright home lives. One place, so the Dagster wiring,
the web app and the scripts agree without importing each other.

    <home>/warehouse.duckdb        the warehouse (one writer)
    <home>/analyst.duckdb          the read-only snapshot analysts and the web app query
    <home>/llm_cache.sqlite3       the LLM response cache
    <home>/dagster_home/           Dagster's instance (runs, event log)
    <home>/drops/<name>/           files producers drop for the sensors (each benchmark declares its folders)
    <home>/exports/<name>/         files we write for others (a benchmark's export)
    <home>/plots/                  figures
    <home>/web/                    the web app's state and secret

The home is BENCHWRIGHT_HOME, by default ``.benchwright/`` in the repository root. The warehouse file
is the one setting BENCHWRIGHT_WAREHOUSE (default ``<home>/warehouse.duckdb``; docs/SCALE.md says where
it goes next); drop and export folders sit beside it, so a warehouse configured elsewhere takes its
folders along.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WAREHOUSE_FILE = "warehouse.duckdb"
SNAPSHOT_FILE = "analyst.duckdb"
CACHE_FILE = "llm_cache.sqlite3"
DAGSTER_FOLDER = "dagster_home"

# The drop folders the kernel reads; a benchmark's own are in its declaration (benchwright.benchmarks).
HUMAN_PAIRWISE = "human_pairwise"  # people's pairwise choices (benchwright.human_pairwise), for any benchmark
BENCHMARK_SCORES = "benchmark_scores"  # other benchmarks' scores per model (benchwright.redundancy)


WAREHOUSE_VARIABLE = "BENCHWRIGHT_WAREHOUSE"
# Connection strings of warehouses that are not a local file: described in docs/SCALE.md, not built yet.
REMOTE_WAREHOUSE_PREFIXES = ("md:", "motherduck:", "ducklake:")


def benchwright_home() -> Path:
    return Path(os.environ.get("BENCHWRIGHT_HOME", ROOT / ".benchwright")).resolve()


def analyst_snapshot(given: Path | None = None) -> Path | None:
    """The snapshot a terminal command reads: `given`, else ``<home>/analyst.duckdb``. None, after saying on
    stderr how to make one, when it does not exist (the caller exits with 1)."""
    snapshot = given or benchwright_home() / SNAPSHOT_FILE
    if snapshot.exists():
        return snapshot
    print(f"no analyst snapshot at {snapshot}: run `python3.11 dev.py demo` (or run) first", file=sys.stderr)
    return None


def warehouse_location(home: Path) -> Path:
    """The warehouse's DuckDB file: BENCHWRIGHT_WAREHOUSE when set, else ``<home>/warehouse.duckdb``.

    Every reader and writer gets it from here (through ``resources.default_resources``), so this variable
    is the one place the location is decided. A MotherDuck or DuckLake connection string is refused with
    a pointer to docs/SCALE.md rather than half-used: the file lock, space reclaim and drop folders
    assume a local file.
    """
    configured = os.environ.get(WAREHOUSE_VARIABLE, "").strip()
    if not configured:
        return home / WAREHOUSE_FILE
    if configured.lower().startswith(REMOTE_WAREHOUSE_PREFIXES):
        raise ValueError(f"{WAREHOUSE_VARIABLE}={configured.split('?')[0]!r}: a shared warehouse (MotherDuck, "
                         "DuckLake) is not supported by this version; docs/SCALE.md describes the move. "
                         "Give a local DuckDB file path.")
    return Path(configured).expanduser().resolve()


def beside_warehouse(warehouse_file: str | os.PathLike, *parts: str, configured: str = "") -> Path:
    """A folder next to the warehouse file (``drops/<name>``, ``exports/<name>``, ``plots``), unless one
    is configured."""
    return Path(configured) if configured else Path(warehouse_file).resolve().parent.joinpath(*parts)


def drop_folder(warehouse_file: str | os.PathLike, name: str, configured: str = "") -> Path:
    return beside_warehouse(warehouse_file, "drops", name, configured=configured)


def export_folder(warehouse_file: str | os.PathLike, name: str, configured: str = "") -> Path:
    return beside_warehouse(warehouse_file, "exports", name, configured=configured)


def web_folder(home: Path) -> Path:
    return home / "web"


WEB_URL_VARIABLE = "BENCHWRIGHT_WEB_URL"
DEFAULT_WEB_URL = "http://127.0.0.1:8000"  # where `python3.11 dev.py web` serves by default


def explorer_url(page: str) -> str:
    """The results explorer's page `page` (a benchmark's name, `ratings`, ...) on the web app, for links from the
    Dagster UI: BENCHWRIGHT_WEB_URL, or the address `dev.py web` serves on."""
    base = os.environ.get(WEB_URL_VARIABLE, "").strip() or DEFAULT_WEB_URL
    return f"{base.rstrip('/')}/explore/{page}"


def count_setting(variable: str, default: int) -> int:
    """A count from the environment (processes, runs at once): `default` when unset or blank; anything but
    a whole number of at least 1 is refused, naming the variable, before any work starts."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{variable} must be a whole number (at least 1), not {text!r}") from None
    if value < 1:
        raise ValueError(f"{variable} must be at least 1, not {value}")
    return value


# --- benchmarks from outside the repository ------------------------------------------------------------

PLUGINS_VARIABLE = "BENCHWRIGHT_PLUGINS"


def plugin_modules() -> list[str]:
    """Modules named in BENCHWRIGHT_PLUGINS (comma-separated, importable from PYTHONPATH): benchmarks kept
    outside this repository, wired exactly like a module of assets/ (see docs/ARCHITECTURE.md)."""
    return [name.strip() for name in os.environ.get(PLUGINS_VARIABLE, "").split(",") if name.strip()]


SQL_ROOT = ROOT / "sql"
"""This repository's SQL, one folder per area: ``core/`` (what every benchmark shares), one per benchmark
(``<benchmark>/``), each holding ``ddl/``, ``views/``, ``queries/`` and ``checks/`` as it needs, and
``web/`` (the web app's reads and its own state file's statements)."""


def sql_folders() -> list[Path]:
    """The folders whose ``ddl/`` and ``views/`` make the warehouse: each area of this repository's sql/ (core
    first, then by name), then the ``sql/`` folder beside each plugin module. Found without importing the plugins
    (the warehouse needs the DDL before any asset runs)."""
    areas = sorted((path for path in SQL_ROOT.iterdir() if path.is_dir()), key=lambda p: (p.name != "core", p.name))
    folders = list(areas)
    for name in plugin_modules():
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ModuleNotFoundError(f"{PLUGINS_VARIABLE} names {name!r}, which is not importable from PYTHONPATH")
        folders.append(Path(spec.origin).resolve().parent / "sql")
    return folders


def sql_file(relative_path: str) -> Path:
    """The SQL file `relative_path` names: under this repository's sql/ (``<area>/queries/<name>.sql``), else
    under a plugin's ``sql/`` folder (``queries/<name>.sql``)."""
    for folder in [SQL_ROOT, *sql_folders()]:
        if (folder / relative_path).is_file():
            return folder / relative_path
    raise FileNotFoundError(f"no SQL file {relative_path} in {', '.join(map(str, [SQL_ROOT, *sql_folders()]))}")


def sql_files(kind: str) -> list[Path]:
    """The ``ddl`` or ``views`` files of every SQL folder, ordered by file name across folders (the DDL's numeric
    prefixes order the tables: ``core/ddl/00_core.sql`` first)."""
    return sorted((path for folder in sql_folders() for path in (folder / kind).glob("*.sql")), key=lambda p: p.name)
