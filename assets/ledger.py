"""The cost ledger: what every LLM-calling step asked for, copied from the response cache's journal into
the warehouse (table `llm_ledger`, view `cost_ledger`)."""

import datetime as dt

import dagster as dg
import pandas as pd

from assets.common import EAGER, graph_assets, simulation_flags
from benchwright.llm import LEDGER_COLUMNS, ResponseCache
from resources.llm import LLMClient
from resources.registry import Registry
from resources.warehouse import Warehouse

# Rows are copied by their id, so reading a little before the last copied row loses nothing and adds nothing:
# the margin covers runs that wrote their rows while the previous copy was reading.
_OVERLAP = dt.timedelta(hours=1)


def llm_assets() -> list[dg.AssetsDefinition]:
    """Every asset that calls models (asks for the `llm` resource), a plugin's included."""
    return graph_assets(lambda a: "llm" in a.required_resource_keys, besides=("publish", "ledger"))


def side_flags(slugs: pd.Series, labels: dict) -> pd.Series:
    """model_simulated / judge_simulated of ledger rows (the same rule as add_labels); NULL where the row
    names no such entry ('' in the journal: an answer has no judge)."""
    return simulation_flags(slugs, labels).astype("boolean").mask(slugs.eq(""))


@dg.asset(
    group_name="metrics",
    deps=llm_assets(),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="What each step asked the LLM layer for, by benchmark, stage (asset), partition, model and judge: "
                "a row per call (tokens, cost, latency) and a row per run and partition counting its cache hits "
                "(`results`). Per benchmark × model × "
                "judge × stage in the `cost_ledger` view of the analyst snapshot.",
)
def llm_ledger(context: dg.AssetExecutionContext, warehouse: Warehouse, llm: LLMClient,
               registry: Registry) -> dg.MaterializeResult:
    last = warehouse.query("SELECT max(recorded_at) AS last FROM llm_ledger")["last"].iloc[0]
    since = 0.0 if pd.isna(last) else (pd.Timestamp(last).tz_localize("UTC") - _OVERLAP).timestamp()
    cache = ResponseCache(llm.cache_path)
    try:
        rows = pd.DataFrame(cache.ledger_since(since), columns=LEDGER_COLUMNS)
    finally:
        cache.close()
    copied = set(warehouse.query("SELECT ledger_id FROM llm_ledger WHERE recorded_at >= to_timestamp(?)::TIMESTAMP",
                                 [since])["ledger_id"])
    rows = rows[~rows["ledger_id"].isin(copied)].assign(recorded_at=lambda r: pd.to_datetime(r["recorded_at"], unit="s"))
    for column in ("cached", "error", "simulated"):
        rows[column] = rows[column].astype(bool)
    labels = registry.labels()
    for role in ("model", "judge"):
        rows[f"{role}_simulated"] = side_flags(rows[role], labels)
    added = warehouse.add_new_rows("llm_ledger", rows, key=["ledger_id"])
    calls = rows[~rows["cached"]]
    hits = int(rows.loc[rows["cached"], "results"].sum())
    context.log.info(f"cost ledger: {added} new rows: {len(calls)} calls, {hits} cache hits, "
                     f"${calls['cost_usd'].sum():.4f}")
    # Not named api_calls / cache_hits: the main job adds those up over every step that called a model.
    return dg.MaterializeResult(metadata={"new_rows": added, "new_calls": len(calls), "new_cache_hits": hits,
                                          "new_cost_usd": round(float(calls["cost_usd"].sum()), 6)})
