"""Publish: the read-only analyst snapshot (docs/DESIGN.md#storage). Analysts never open the live warehouse."""


import dagster as dg

from assets.common import EAGER, graph_assets
from benchwright.paths import sql_files
from benchwright.steps import code_version
from resources import warehouse as warehouse_module
from resources.warehouse import Warehouse


def metric_assets() -> list[dg.AssetsDefinition]:
    """Every asset in the ``metrics`` group, of every module in assets/ and of every plugin: the snapshot
    follows them all, so a new benchmark's metrics are published without editing this list."""
    return graph_assets(lambda a: "metrics" in a.group_names_by_key.values(), besides=("publish",))


def published_assets() -> list[dg.AssetsDefinition]:
    """What the snapshot follows: every metric, the GAP log ingest, whose data version is its rows'
    (assets.common.rows_version): quarantined lines or re-delivered marks change no metric, yet are published, and
    the canaries' judgments, which write their results table (canary_results) themselves."""
    from assets.canaries import canary_judgments
    from assets.gap import gap_game_logs

    return [*metric_assets(), gap_game_logs, canary_judgments]


@dg.asset(
    group_name="publish",
    deps=published_assets(),
    # The snapshot's logic is the publish code and the views it applies.
    code_version=code_version(warehouse_module, files=sql_files("views")),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Copies the warehouse to a read-only analyst snapshot (DuckDB storage v1.4.0, readable by older "
                "clients) and applies the views in sql/*/views/, every table, view and column commented. Query it with "
                "`python3.11 dev.py sql`.",
)
def analyst_snapshot(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    views = warehouse.publish_snapshot()
    context.log.info(f"snapshot written to {warehouse.snapshot_path} with views {views}")
    # Every run that replaced rows ends here, so this is where the warehouse gives their space back.
    reclaimed = warehouse.reclaim_space()
    if reclaimed:
        context.log.info(f"warehouse compacted: {reclaimed / 1e6:.1f} MB of replaced rows given back")
    return dg.MaterializeResult(metadata={"path": dg.MetadataValue.path(warehouse.snapshot_path),
                                          "views": dg.MetadataValue.json(views), "reclaimed_bytes": reclaimed})
