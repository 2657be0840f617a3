"""Judge self-preference (benchwright/families.py, docs/judge_families.md): per benchmark and judge, what a
judge gives candidates of its own family above the consensus of the judges outside that family.

Thin wiring: the method is benchwright.families; the scores come from the judgment tables (sql/core/queries/
families). Single judges only (a panel has no family of its own), candidates only (no canary, no baseline).
"""

import dagster as dg
import pandas as pd

from assets.common import EAGER, table_metadata
from assets.creation import creation_pairwise_judgments
from assets.sources import registry_labels
from assets.urs import urs_judgments
from benchwright import families, steps
from benchwright.paths import sql_file
from resources.registry import Registry
from resources.warehouse import Warehouse

QUERIES = {"creation_pairwise": "core/queries/families/creation_scores.sql",
           "urs": "core/queries/families/urs_scores.sql"}


@dg.asset(
    group_name="metrics",
    deps=[registry_labels, creation_pairwise_judgments, urs_judgments],
    code_version=steps.code_version(families, files=[sql_file(q) for q in QUERIES.values()]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Judge self-preference (Panickssery et al. 2024; docs/judge_families.md): per benchmark "
                "(Creation win score, URS final score) and judge, the score it gives candidates of its own family "
                "(registry `family:`, else derived from the model string) minus the consensus of the judges "
                "outside their family, net of its leniency on the other families, with a 95 % t interval over "
                "items. A judge with no candidate of its family has no row. Check: judge_self_preference_below_"
                "threshold (WARN).",
)
def judge_self_preference(context: dg.AssetExecutionContext, warehouse: Warehouse,
                          registry: Registry) -> dg.MaterializeResult:
    judges = registry.judges()
    candidates = registry.candidates()
    family_of = {e.slug: e.family_name for e in [*judges, *candidates]}
    params = [[j.slug for j in judges], [c.slug for c in candidates]]
    tables = [families.self_preference(warehouse.query_file(query, params), family_of, benchmark)
              for benchmark, query in QUERIES.items()]
    table = pd.concat([t for t in tables if len(t)], ignore_index=True) if any(len(t) for t in tables) \
        else pd.DataFrame(columns=families.SELF_PREFERENCE_COLUMNS)
    warehouse.replace_rows("judge_self_preference", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(
        table, ["benchmark", "judge", "judge_family", "self_preference", "lower", "upper", "flagged"],
        families=dg.MetadataValue.json(family_of), flagged=int(table["flagged"].sum()) if len(table) else 0))
