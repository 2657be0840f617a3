"""Metric assets: the Creation leaderboard and the judge-quality table (unpartitioned, eager)."""


import dagster as dg
import pandas as pd

from assets.common import table_metadata
from assets.judgments import creation_pairwise_judgments, creation_vfs_judgments
from benchwright import creation
from resources.registry import Registry
from resources.warehouse import Warehouse


def _label(df: pd.DataFrame, registry: Registry, columns: dict[str, str]) -> pd.DataFrame:
    """Add display-name columns and the simulated flag (true if any named model is a simulation)."""
    labels = registry.labels()
    df = df.copy()
    simulated = pd.Series(False, index=df.index)
    for slug_column, display_column in columns.items():
        df[display_column] = df[slug_column].map(lambda s: labels.get(s, (s, False))[0])
        # Slugs no longer in the registry keep their slug as name; imported rows say so in `source`.
        simulated |= df[slug_column].map(lambda s: labels.get(s, (s, False))[1]).astype(bool)
    df["simulated"] = simulated
    return df


@dg.asset(
    group_name="metrics",
    deps=[creation_pairwise_judgments, creation_vfs_judgments],
    code_version="1",
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"duckdb"},
    description="Creation leaderboard per judge and model: VFS, Reward, Win Rate, MB/Better/Tie/Worse/MW/Fail, "
                "overall, per category and per task (METHODS §1.3). Both orders of every pair count as "
                "judgments; n excludes parse failures; failed calls are not counted at all.",
)
def creation_leaderboard(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    pairwise = warehouse.query("SELECT * FROM creation_pairwise_judgments WHERE error IS NULL")
    vfs = warehouse.query("SELECT * FROM creation_vfs_judgments WHERE error IS NULL")
    items = warehouse.query("SELECT item_id, category, task FROM creation_items")
    board = _label(creation.leaderboard(pairwise, vfs, items), registry, {"model": "model_display", "judge": "judge_display"})
    warehouse.replace_rows("creation_leaderboard", board, match={})
    overall = board[board["scope"] == "overall"].sort_values(["judge", "reward"], ascending=[True, False])
    return dg.MaterializeResult(metadata=table_metadata(
        overall, ["judge", "model_display", "vfs", "reward", "win_rate", "mb", "better", "tie", "worse", "mw", "fail"],
        aggregation="Reward = (100·MB + 50·B − 50·W − 100·MW)/n and Win Rate = (MB+B)/n over both orders; "
                    "n = parsed judgments; VFS = mean candidate score",
    ))


@dg.asset(
    group_name="metrics",
    deps=[creation_pairwise_judgments],
    code_version="1",
    automation_condition=dg.AutomationCondition.eager(),
    kinds={"duckdb"},
    description="How far each judge can be trusted: exact and relaxed position-swap consistency, parse rate, "
                "P(prefer first position), P(prefer longer answer).",
)
def judge_quality(context: dg.AssetExecutionContext, warehouse: Warehouse, registry: Registry) -> dg.MaterializeResult:
    pairwise = warehouse.query("SELECT * FROM creation_pairwise_judgments WHERE error IS NULL")
    table = _label(creation.judge_quality(pairwise), registry, {"judge": "judge_display"})
    warehouse.replace_rows("judge_quality", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(table, list(table.columns)))
