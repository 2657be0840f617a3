"""Schema and range checks (great-expectations via benchwright.quality) on the interop metric tables."""


import dagster as dg

from assets.interop import interop_agreement, interop_ratings, interop_win_rates
from benchwright.agreement import AGREEMENT_SUITE
from benchwright.ratings import RATINGS_SUITE, WIN_RATES_SUITE
from checks.results import schema_result
from resources.warehouse import Warehouse


def _result(warehouse: Warehouse, table: str, suite: list[dict]) -> dg.AssetCheckResult:
    df = warehouse.query(f"SELECT * FROM {table}")
    if df.empty:
        return dg.AssetCheckResult(passed=True, metadata={"rows": 0, "note": "nothing to validate"})
    return schema_result(df, suite, table)


@dg.asset_check(asset=interop_ratings, name="schema_and_ranges",
                description="Ratings present, win rates within 0-100, one row per source, judge and model.")
def ratings_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return _result(warehouse, "interop_ratings", RATINGS_SUITE)


@dg.asset_check(asset=interop_win_rates, name="schema_and_ranges",
                description="Win rates within 0-100, standard errors non-negative, one row per model.")
def win_rates_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return _result(warehouse, "interop_win_rates", WIN_RATES_SUITE)


@dg.asset_check(asset=interop_agreement, name="schema_and_ranges",
                description="Shares within 0-1, MAE within 0-4, correlations and kappa within -1..1.")
def agreement_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return _result(warehouse, "interop_agreement", AGREEMENT_SUITE)
