"""Blocking residual-PII checks (DESIGN §5), one per table that stores free text.

Every asset redacts (or pseudonymises) personal data *before* it writes; a blocking check cannot
undo a write, so these checks prove, after it, that nothing was left. One factory builds them all
from ``SPECS``: adding a table that stores text means adding a spec and its query.

Each query lives in ``sql/*/checks/residual_pii_*.sql`` and selects ``location`` first, then the text
columns (a query with one text column names the column in ``location`` itself). A check on a
model-partitioned asset passes ``params`` and then the partition's model to the query.
"""

from dataclasses import dataclass

import dagster as dg

from assets.creation import creation_generations, creation_items
from assets.creation_human import creation_human_alignment
from assets.gap import gap_game_logs, gap_generations, gap_vqa_dataset
from assets.mmmt_if import mmmt_if_generations, mmmt_if_human_ratings
from assets.partitions import models_partitions
from assets.urs import urs_generations, urs_human_alignment, urs_items
from benchwright.mmmt_if import prompts
from checks.results import pii_result
from resources.warehouse import Warehouse


@dataclass(frozen=True)
class ResidualPII:
    asset: dg.AssetsDefinition
    name: str
    sql_file: str
    description: str
    params: tuple = ()
    by_model: bool = False  # the asset is partitioned by model: the partition's model is the last parameter


SPECS = [
    # datasets: redacted on load
    ResidualPII(creation_items, "creation_items_residual_pii", "creation/checks/residual_pii_creation_items.sql",
                "No personal data left in the Creation items' text (redacted on load)."),
    ResidualPII(urs_items, "urs_items_residual_pii", "urs/checks/residual_pii_urs_items.sql",
                "No personal data left in the URS questions and reference answers (redacted on load; the asset's "
                "metadata shows what was found, masked)."),
    ResidualPII(gap_vqa_dataset, "gap_vqa_residual_pii", "gap/checks/residual_pii_gap_vqa.sql",
                "No personal data left in the GAP-VQA items, which are what the export folder holds."),
    # models' answers: redacted as they arrive
    ResidualPII(creation_generations, "generations_residual_pii", "core/checks/residual_pii_generations.sql",
                "No personal data left in this model's answers (they are redacted before writing).",
                params=("creation",), by_model=True),
    ResidualPII(urs_generations, "urs_generations_residual_pii", "core/checks/residual_pii_generations.sql",
                "No personal data left in this model's URS answers (they are redacted before writing).",
                params=("urs",), by_model=True),
    ResidualPII(mmmt_if_generations, "mmmt_if_generations_residual_pii", "core/checks/residual_pii_generations.sql",
                "No personal data left in this model's MMMT-IF answers (redacted before writing).",
                params=(prompts.BENCHMARK,), by_model=True),
    ResidualPII(gap_generations, "gap_generations_residual_pii", "core/checks/residual_pii_generations.sql",
                "No personal data left in this model's GAP-VQA answers (redacted before writing).",
                params=("gap",), by_model=True),
    # what people write: redacted and pseudonymised on load
    ResidualPII(gap_game_logs, "gap_marks_residual_pii", "gap/checks/residual_pii_gap_marks.sql",
                "No personal data left in the stored game marks and quarantined lines (questions, answers, "
                "players, sessions, file names; redacted on ingest)."),
    ResidualPII(creation_human_alignment, "creation_human_pairwise_residual_pii",
                "creation/checks/residual_pii_creation_human_pairwise.sql",
                "No personal data left in the stored Creation human choices (annotators, rounds, file names; "
                "pseudonymised on load)."),
    ResidualPII(urs_human_alignment, "urs_human_pairwise_residual_pii", "urs/checks/residual_pii_urs_human_pairwise.sql",
                "No personal data left in the stored URS human choices (annotators, rounds, file names; "
                "pseudonymised on load)."),
    ResidualPII(mmmt_if_human_ratings, "mmmt_if_human_residual_pii", "mmmt_if/checks/residual_pii_mmmt_if_human.sql",
                "No personal data left in the stored human ratings and preferences (raters, file names; "
                "pseudonymised on load)."),
]


def residual_pii_result(warehouse: Warehouse, spec: ResidualPII, model: str | None = None) -> dg.AssetCheckResult:
    """Scan what the spec's query selects (for ``model``'s partition when the asset has one)."""
    df = warehouse.query_file(spec.sql_file, [*spec.params, model] if spec.by_model else list(spec.params))
    texts = [column for column in df.columns if column != "location"]
    return pii_result([(row["location"] if len(texts) == 1 else f"{row['location']}/{column}", row[column])
                       for row in df.to_dict("records") for column in texts if isinstance(row[column], str)])


def residual_pii_check(spec: ResidualPII) -> dg.AssetChecksDefinition:
    """The blocking check a spec describes: passes when its query's texts hold no personal data."""
    partitions = {"partitions_def": models_partitions} if spec.by_model else {}

    @dg.asset_check(asset=spec.asset, name=spec.name, blocking=True, description=spec.description, **partitions)
    def _check(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
        return residual_pii_result(warehouse, spec, context.partition_key if spec.by_model else None)

    return _check


residual_pii_checks = [residual_pii_check(spec) for spec in SPECS]
