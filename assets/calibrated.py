"""Human-calibrated estimates (docs/calibrated_estimates.md): a few human labels and a judge's labels on every item,
combined by prediction-powered inference (PPI++).

Thin wiring: the method and the estimands are benchwright.calibrated. The human labels are the ones already
stored: Creation's and URS's choices (written by creation_human_alignment and urs_human_alignment from the
annotation drops and URS's file) and the imported Auto-J and LLMBar labels. An estimand without at least two
human-labelled items has no row: nothing is made up where no person looked.
"""

import dagster as dg

from assets.common import EAGER, add_labels, table_metadata
from assets.creation import PANEL_JUDGMENTS, creation_pairwise_judgments
from assets.creation_human import creation_human_alignment
from assets.interop import interop_auto_j, interop_llmbar
from assets.sources import registry_labels
from assets.urs import urs_human_alignment, urs_judgments
from benchwright import agreement, calibrated, steps
from benchwright.paths import sql_file
from resources.registry import Registry
from resources.warehouse import Warehouse


CREATION_JUDGMENTS_SQL = "core/queries/calibrated/creation_judgments.sql"
CREATION_CHOICES_SQL = "core/queries/calibrated/creation_choices.sql"
URS_JUDGMENTS_SQL = "core/queries/calibrated/urs_judgments.sql"
INTEROP_SQL = "core/queries/interop/pairwise_with_human_labels.sql"
QUERIES = (CREATION_JUDGMENTS_SQL, CREATION_CHOICES_SQL, URS_JUDGMENTS_SQL, INTEROP_SQL)


class CalibratedConfig(dg.Config):
    imported_human_labels: int = 100
    """Imported sets label every pair: this many, drawn at random, keep their human label (the rest only the
    judge's), so the table shows what calibration gives with a small human budget."""
    seed: int = 0
    """Of that draw: the same seed draws the same pairs."""


@dg.asset(
    group_name="metrics",
    deps=[registry_labels, creation_pairwise_judgments, PANEL_JUDGMENTS[0], creation_human_alignment,
          urs_judgments, dg.AssetKey("urs_panel_judgments"), urs_human_alignment, interop_auto_j, interop_llmbar],
    code_version=steps.code_version(calibrated, agreement, files=[sql_file(q) for q in QUERIES]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Human-calibrated win rates (PPI++, Angelopoulos, Duchi & Zrnic 2023; docs/calibrated_estimates.md): "
                "per judge and estimand, the judge-only, human-only and calibrated estimates with 95 % intervals, "
                "the power-tuned weight λ and the effective number of human labels. Creation: each candidate "
                "against the baseline; URS: each pair of models people compared; imported Auto-J / LLMBar "
                "sets: the second response, from `imported_human_labels` of their human labels. No row "
                "without at least two human-labelled items.",
)
def calibrated_estimates(context: dg.AssetExecutionContext, config: CalibratedConfig, warehouse: Warehouse,
                         registry: Registry) -> dg.MaterializeResult:
    estimands = [
        *calibrated.creation_estimands(warehouse.query_file(CREATION_JUDGMENTS_SQL),
                                       warehouse.query_file(CREATION_CHOICES_SQL)),
        *calibrated.urs_estimands(warehouse.query_file(URS_JUDGMENTS_SQL),
                                  warehouse.query("SELECT * FROM urs_human_pairwise")),
    ]
    humans = warehouse.query("SELECT * FROM interop_human_labels")
    if len(humans):
        judgments = warehouse.query_file(INTEROP_SQL)
        estimands += calibrated.interop_estimands(agreement.judge_item_labels(judgments), humans,
                                                  config.imported_human_labels, config.seed)
    table = calibrated.calibrated_table(estimands)
    table = add_labels(table, registry, {"judge": "judge_display", "model": "model_display",
                                         "opponent": "opponent_display"})
    warehouse.replace_rows("calibrated_estimates", table, match={})
    skipped = len(estimands) - len(table)
    return dg.MaterializeResult(metadata=table_metadata(
        table, ["benchmark", "judge", "model", "n_human", "human_only", "calibrated", "effective_n_human"],
        estimands_without_enough_labels=skipped,
        aggregation="win rates, ties 1/2; PPI++ with the power-tuned λ; 95 % normal intervals"))
