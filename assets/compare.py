"""Comparisons item by item (Creation): every pair of candidates under each judge, every pair of judges
(panels included) on each model. Counted in DuckDB (sql/core/queries/compare/); views compare_models and
compare_judges; `python3.11 dev.py compare models|judges A B` prints one pair from the snapshot."""

import dagster as dg

from assets.common import EAGER
from assets.creation import PANEL_JUDGMENTS, creation_pairwise_judgments
from benchwright import compare, steps
from benchwright.paths import sql_file
from resources.warehouse import Warehouse, read_sql

QUERIES = {  # table -> the query that fills it (each summary reads the item table written before it)
    "comparison_model_items": "core/queries/compare/model_items.sql",
    "comparison_models": "core/queries/compare/models.sql",
    "comparison_judge_items": "core/queries/compare/judge_items.sql",
    "comparison_judges": "core/queries/compare/judges.sql",
}


@dg.asset(
    group_name="metrics",
    deps=[creation_pairwise_judgments, PANEL_JUDGMENTS[0]],
    code_version=steps.code_version(compare, files=[sql_file(q) for q in QUERIES.values()]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Creation, item by item: two candidates under the same judge (which items flipped from a win to a "
                "loss against the baseline, win/loss deltas, share of items with the same result), and two judges "
                "on the same judged items (the same figures from the candidate's side, plus exact agreement).",
)
def creation_comparisons(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    # Filled in DuckDB, never through pandas: the model item table is every pair of candidates × judge × item
    # (7.6 million rows at 100 candidates × 2 judges × 765 items); only the pair summaries are read back.
    written = warehouse.fill_from_queries([(table, read_sql(query)) for table, query in QUERIES.items()])
    models = warehouse.query("SELECT * FROM comparison_models")
    judges = warehouse.query("SELECT * FROM comparison_judges")
    return dg.MaterializeResult(metadata={
        "model_pairs": int(len(models) // 2), "judge_pairs": int(len(judges[judges["model"] == "all"]) // 2),
        "items_compared": int(written["comparison_model_items"]),
        "units_compared": int(written["comparison_judge_items"]),
        "preview": dg.MetadataValue.md("**Candidates** (per judge)\n\n" + compare.preview(models, "models")
                                       + "\n\n**Judges** (all models)\n\n"
                                       + compare.preview(judges[judges["model"] == "all"], "judges")),
    })
