"""The human pairwise drop folder, read the same way by URS and Creation alignment (no assets here).

The annotation app appends one CSV row per choice to `<warehouse folder>/drops/human_pairwise/<round_id>.csv`
(format: benchwright.human_pairwise). `sensors/human_pairwise.py` watches the folder.
"""

from pathlib import Path

import dagster as dg

from assets.common import record_problems, rows_version
from benchwright import paths
from benchwright.human_pairwise import load_folder, with_known_models
from resources.registry import Registry
from resources.warehouse import Warehouse

# dataset_problems rows for the folder's files: (benchmark, dataset)
FOLDER_PROBLEMS = {"benchmark": "human_pairwise", "dataset": "drop_folder"}


def human_pairwise_drop_folder(warehouse: Warehouse, configured: str = "") -> Path:
    """Where the choices are dropped: next to the warehouse unless configured."""
    return paths.drop_folder(warehouse.database, paths.HUMAN_PAIRWISE, configured)


def load_human_pairwise_drops(context: dg.AssetExecutionContext, warehouse: Warehouse, folder: Path,
                              registry: Registry) -> tuple[list[dict], list]:
    """Every choice in the folder (both benchmarks), each once, with registered models only, and the
    problems; each is logged and recorded. Rows are dicts (``ROW_COLUMNS`` plus ``source_row``).

    Both alignment assets call this and record the same folder problems, so either one keeps
    `dataset_problems` true for the folder.
    """
    rows, problems = load_folder(folder)
    rows, unknown = with_known_models(rows, known_models(registry))
    problems = problems + unknown
    record_problems(context, warehouse, problems, **FOLDER_PROBLEMS)
    return rows, problems


def alignment_version(warehouse: Warehouse, tables: list[str], problems: dict) -> dg.DataVersion:
    """An alignment asset's data version: its tables, its own `dataset_problems` rows and the folder's, so a
    round of the other benchmark's choices leaves it unchanged."""
    return rows_version(warehouse, [*tables, ("dataset_problems", problems), ("dataset_problems", FOLDER_PROBLEMS)])


def known_models(registry: Registry) -> set[str]:
    return {e.slug for e in registry.entries("models")}
