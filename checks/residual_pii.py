"""Blocking residual-PII checks (docs/ARCHITECTURE.md#checks), one per table that stores free text.

Every asset redacts (or pseudonymises) personal data *before* it writes; a blocking check cannot
undo a write, so these checks prove, after it, that nothing was left. One factory builds them all
from the specs every benchmark declares (``benchwright.benchmarks.ResidualPII``, the declaration's
``residual_pii``): adding a table that stores text means adding a spec to its benchmark's declaration and its query.

Each query lives in ``sql/*/checks/residual_pii_*.sql`` and selects ``location`` first, then the text
columns (a query with one text column names the column in ``location`` itself). A check on a
model-partitioned asset passes ``params`` and then the partition's model to the query.
"""

import dagster as dg

from assets.partitions import models_partitions
from benchwright import benchmarks
from benchwright.benchmarks import ResidualPII
from checks.one_step import asset_check
from checks.results import pii_result
from resources.warehouse import Warehouse


def specs() -> list[ResidualPII]:
    """Every declared benchmark's residual-PII specs, plugins' included."""
    return [spec for benchmark in benchmarks.declared() for spec in benchmark.residual_pii]


def residual_pii_result(warehouse: Warehouse, spec: ResidualPII, model: str | None = None) -> dg.AssetCheckResult:
    """Scan what the spec's query selects (for ``model``'s partition when the asset has one)."""
    df = warehouse.query_file(spec.sql_file, [*spec.params, model] if spec.by_model else list(spec.params))
    texts = [column for column in df.columns if column != "location"]
    return pii_result([(row["location"] if len(texts) == 1 else f"{row['location']}/{column}", row[column])
                       for row in df.to_dict("records") for column in texts if isinstance(row[column], str)])


def residual_pii_check(spec: ResidualPII) -> dg.AssetChecksDefinition:
    """The blocking check a spec describes: passes when its query's texts hold no personal data."""
    partitions = {"partitions_def": models_partitions} if spec.by_model else {}

    @asset_check(asset=spec.asset, name=spec.name, blocking=True, description=spec.description, **partitions)
    def _check(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
        return residual_pii_result(warehouse, spec, context.partition_key if spec.by_model else None)

    return _check


residual_pii_checks = [residual_pii_check(spec) for spec in specs()]
