"""Judge panels (registry/panels.yaml): a panel's judgments built from its members' stored judgments.

Thin wiring: the aggregate and the agreement figures are benchwright.panels. A panel's partition is model ×
panel (the `judge` key is the panel's slug); it reads its model's judgments by every judge
(`all_judges_of_model`), so a member's new or changed judgments make it stale and eager() re-runs it, and
its own entry (`panel_entries`), so a changed member list does too. No LLM call is made.
"""

import dagster as dg
import pandas as pd

from assets.common import EAGER, store_flagged, table_metadata
from assets.creation import creation_pairwise_judgments, creation_vfs_judgments
from assets.urs import urs_judgments
from assets.partitions import all_judges_of_model, model_and_judge, model_panel_partitions
from assets.sources import PANEL_ENTRY, panel_entries
from benchwright import agreement, panels, steps
from benchwright.creation.steps import PAIRWISE_COLUMNS, VFS_COLUMNS
from benchwright.urs.steps import JUDGMENT_COLUMNS as URS_COLUMNS
from resources.registry import Registry
from resources.warehouse import Warehouse

_MEMBERS_SQL = "SELECT * FROM {table} WHERE model = ? AND list_contains(?, judge) AND source = 'benchwright'"


def _member_rows(warehouse: Warehouse, table: str, model: str, panel: panels.PanelEntry):
    return warehouse.query(_MEMBERS_SQL.format(table=table), [model, list(panel.members)])


@dg.asset(
    deps=[PANEL_ENTRY, dg.AssetDep(creation_pairwise_judgments, partition_mapping=all_judges_of_model)],
    group_name="judgments",
    partitions_def=model_panel_partitions,
    code_version=steps.code_version(panels),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="A judge panel's pairwise verdicts on one candidate (partition: model × panel), one per item and "
                "order: the strict majority of the members' parsed verdicts, `A=B` when there is none; written to "
                "creation_pairwise_judgments with the panel's slug as judge. No LLM call.",
)
def creation_panel_pairwise_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse,
                                      registry: Registry) -> dg.MaterializeResult:
    model, panel_slug = model_and_judge(context)
    panel = registry.panel(panel_slug)
    members = _member_rows(warehouse, "creation_pairwise_judgments", model, panel)
    missing = sorted(set(panel.members) - set(members["judge"]))
    if missing:  # a member's partition ran but stored nothing for this model (no answers yet)
        context.log.warning(f"panel {panel.slug}: no judgments of {missing} for {model}")
    df = panels.pairwise_rows(panel, members, PAIRWISE_COLUMNS)
    store_flagged(warehouse, "creation_pairwise_judgments", df, registry, match={"model": model, "judge": panel.slug})
    answered = members["error"].isna()
    return dg.MaterializeResult(metadata=table_metadata(
        df, ["item_id", "judge_order", "verdict", "outcome", "raw_text"],
        members=dg.MetadataValue.json(list(panel.members)), aggregate=panel.aggregate,
        member_parse_failures=int((answered & ~members["parse_ok"].astype(bool)).sum()),
        member_errors=int((~answered).sum()),
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum()), api_calls=0,
    ))


@dg.asset(
    deps=[PANEL_ENTRY, dg.AssetDep(creation_vfs_judgments, partition_mapping=all_judges_of_model)],
    group_name="judgments",
    partitions_def=model_panel_partitions,
    code_version=steps.code_version(panels),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="A judge panel's Visual Factuality Scores on one candidate (partition: model × panel): the mean of "
                "the members' parsed scores A and B per item, written to creation_vfs_judgments with the panel's "
                "slug as judge. No LLM call.",
)
def creation_panel_vfs_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse,
                                 registry: Registry) -> dg.MaterializeResult:
    model, panel_slug = model_and_judge(context)
    panel = registry.panel(panel_slug)
    members = _member_rows(warehouse, "creation_vfs_judgments", model, panel)
    df = panels.score_rows(panel, members, keys=["item_id"], scores=["score_a", "score_b"], parsed_score="score_b",
                           columns=VFS_COLUMNS)
    store_flagged(warehouse, "creation_vfs_judgments", df, registry, match={"model": model, "judge": panel.slug})
    return dg.MaterializeResult(metadata=table_metadata(
        df, ["item_id", "score_a", "score_b", "parse_ok", "raw_text"],
        members=dg.MetadataValue.json(list(panel.members)), aggregate=panel.aggregate,
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum()), api_calls=0,
    ))


@dg.asset(
    deps=[PANEL_ENTRY, dg.AssetDep(urs_judgments, partition_mapping=all_judges_of_model)],
    group_name="judgments",
    partitions_def=model_panel_partitions,
    code_version=steps.code_version(panels),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="A judge panel's URS scores on one candidate (partition: model × panel): the mean of the members' "
                "parsed final scores and, criterion by criterion, of their criterion scores per question, written to "
                "urs_judgments with the panel's slug as judge. No LLM call.",
)
def urs_panel_judgments(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    model, panel_slug = model_and_judge(context)
    panel = registry.panel(panel_slug)
    members = _member_rows(warehouse, "urs_judgments", model, panel)
    df = panels.score_rows(panel, members, keys=["item_id"], scores=["final_score"], parsed_score="final_score",
                           columns=URS_COLUMNS, score_dicts=["criterion_scores"])
    store_flagged(warehouse, "urs_judgments", df, registry, match={"model": model, "judge": panel.slug})
    return dg.MaterializeResult(metadata=table_metadata(
        df, ["item_id", "intent", "language", "final_score", "raw_text"],
        members=dg.MetadataValue.json(list(panel.members)), aggregate=panel.aggregate,
        parse_failures=int((~df["parse_ok"] & df["error"].isna()).sum()), api_calls=0,
    ))


@dg.asset(
    group_name="metrics",
    deps=[panel_entries, creation_pairwise_judgments, creation_panel_pairwise_judgments],
    code_version=steps.code_version(panels, agreement),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="How far each panel's members agree among themselves on the five-point verdicts (a unit = model × "
                "item × order): Cohen's kappa and exact agreement per member pair; Fleiss' kappa, all-equal share "
                "and the members' parse failures and failed calls per panel. judge_report shows the panel rows.",
)
def panel_agreement(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    tables = []
    for panel in registry.panels():
        members = warehouse.query(
            "SELECT model, judge, item_id, judge_order, verdict, parse_ok, error FROM creation_pairwise_judgments "
            "WHERE list_contains(?, judge) AND source = 'benchwright'", [list(panel.members)])
        tables.append(panels.member_agreement(panel, members, unit=["model", "item_id", "judge_order"]))
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=panels.AGREEMENT_COLUMNS)
    warehouse.replace_rows("panel_agreement", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(table, list(table.columns), panels=len(tables)))
