"""Publish: the read-only analyst snapshot (DESIGN §3). Analysts never open the live warehouse."""


import dagster as dg

from assets.creation import creation_leaderboard, judge_quality
from assets.creation_human import creation_human_alignment
from assets.gap import gap_engagement, gap_interaction_model, gap_reliability, gap_scores
from assets.urs import (urs_criterion_means, urs_cross_validation, urs_human_alignment, urs_leaderboard,
                         urs_rating_bias, urs_user_alignment)
from assets.mmmt_if import mmmt_if_human_alignment, mmmt_if_model_comparisons, mmmt_if_pif_metrics, mmmt_if_preferences
from assets.interop import interop_agreement, interop_ratings, interop_win_rates
from resources.warehouse import Warehouse


@dg.asset(
    group_name="publish",
    deps=[creation_leaderboard, judge_quality, creation_human_alignment,
          urs_leaderboard, urs_criterion_means, urs_cross_validation, urs_rating_bias, urs_user_alignment,
          urs_human_alignment,
          mmmt_if_pif_metrics, mmmt_if_model_comparisons, mmmt_if_preferences, mmmt_if_human_alignment,
          interop_ratings, interop_win_rates, interop_agreement,
          gap_reliability, gap_interaction_model, gap_scores, gap_engagement],
    code_version="1",
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"duckdb"},
    description="Copies the warehouse to a read-only analyst snapshot (DuckDB storage v1.4.0, readable by older "
                "clients) and applies the views in sql/views/. Query it with `duckdb -readonly <path>`.",
)
def analyst_snapshot(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    views = warehouse.publish_snapshot()
    context.log.info(f"snapshot written to {warehouse.snapshot_path} with views {views}")
    return dg.MaterializeResult(metadata={"path": dg.MetadataValue.path(warehouse.snapshot_path),
                                          "views": dg.MetadataValue.json(views)})
