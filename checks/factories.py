"""Look-alike checks are data: each benchmark's checks module lists specs, these factories make the
Dagster checks. One factory per kind:

- ``schema_checks``: a great-expectations suite (``benchwright.quality``) over a table, or over the
  rows of one partition (``scope='model'`` or ``'model_judge'``); the check is named
  ``schema_and_ranges`` on its asset unless the spec names it.
- ``parse_failure_checks``: the blocking share of judge outputs that could not be parsed, per
  model × judge partition (failed calls excluded).

The residual-PII checks are made the same way in ``checks/residual_pii.py``; the answer-injection check
by ``checks.results.answer_injection_check``.
"""

from dataclasses import dataclass

import dagster as dg
import pandas as pd

from assets.partitions import model_and_judge, model_judge_partitions, model_panel_partitions, models_partitions
from benchwright.quality import columns_named
from checks.one_step import asset_check
from checks.results import PARSE_FAILURE_THRESHOLD, parse_failure_result, schema_result
from resources.warehouse import Warehouse

_SCOPES = {"table": None, "model": models_partitions, "model_judge": model_judge_partitions,
           "model_panel": model_panel_partitions}  # a panel's slug is its `judge` key


@dataclass(frozen=True)
class SchemaSpec:
    asset: dg.AssetsDefinition
    table: str                        # the table the suite validates
    suite: list[dict]                 # expectations (a benchmark's SUITES entry)
    scope: str = "table"              # 'table', or the partition's rows: 'model' / 'model_judge' / 'model_panel'
    benchmark: str | None = None      # rows of this benchmark only (the shared generations table)
    answered_suite: list[dict] | None = None  # expectations for rows whose call returned
    name: str = "schema_and_ranges"
    report_as: str | None = None      # the suite's name in the check's description (default: the table)
    description: str = ""
    allow_empty: bool = False         # an empty table passes (a table filled only by optional imports)


def _where(scope: str, benchmark: str | None, context) -> tuple[str, list]:
    clauses, params = [], []
    if benchmark is not None:
        clauses.append("benchmark = ?")
        params.append(benchmark)
    if scope == "model":
        clauses.append("model = ?")
        params.append(context.partition_key)
    elif scope in ("model_judge", "model_panel"):
        model, judge = model_and_judge(context)
        clauses += ["model = ?", "judge = ?"]
        params += [model, judge]
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def _read_partition(warehouse: Warehouse, spec: SchemaSpec, context) -> pd.DataFrame:
    """The rows in the check's scope, with only the columns its suites name (and ``error``): the texts
    they skip (responses, raw judge outputs) are most of a row's bytes. A named column the table lacks
    stays absent, so its suite still reports it missing."""
    where, params = _where(spec.scope, spec.benchmark, context)
    wanted = set(columns_named(spec.suite + (spec.answered_suite or []))) | {"error"}
    with warehouse.session() as con:
        columns = [c for c in con.table(spec.table).columns if c in wanted]
        select = ", ".join(f'"{c}"' for c in columns) or "*"
        return con.execute(f"SELECT {select} FROM {spec.table}{where}", params).df()


def schema_check(spec: SchemaSpec) -> dg.AssetChecksDefinition:
    if spec.scope not in _SCOPES:
        raise ValueError(f"{spec.table}: unknown scope {spec.scope!r}; use one of {sorted(_SCOPES)}")
    partitions = {"partitions_def": _SCOPES[spec.scope]} if _SCOPES[spec.scope] else {}

    @asset_check(asset=spec.asset, name=spec.name, **partitions, description=spec.description or
                 f"Schema and ranges of {spec.report_as or spec.table} (great-expectations suite).")
    def _check(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
        df = _read_partition(warehouse, spec, context)
        if df.empty and spec.allow_empty:
            return dg.AssetCheckResult(passed=True, metadata={"rows": 0, "note": "nothing to validate"})
        return schema_result(df, spec.suite, answered_expectations=spec.answered_suite)

    return _check


def schema_checks(specs: list[SchemaSpec]) -> list[dg.AssetChecksDefinition]:
    return [schema_check(spec) for spec in specs]


@dataclass(frozen=True)
class ParseFailureSpec:
    asset: dg.AssetsDefinition
    name: str
    table: str                        # has raw_text, parse_ok, parse_problem, error, model, judge
    description: str
    threshold: float = PARSE_FAILURE_THRESHOLD
    what: str = "judge outputs"
    partitions_def: dg.PartitionsDefinition = model_judge_partitions  # model × panel for a panel's judgments


def parse_failure_check(spec: ParseFailureSpec) -> dg.AssetChecksDefinition:
    @asset_check(asset=spec.asset, name=spec.name, partitions_def=spec.partitions_def, blocking=True,
                 description=spec.description)
    def _check(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
        model, judge = model_and_judge(context)
        df = warehouse.query(f"SELECT raw_text, parse_ok, parse_problem, error FROM {spec.table} "
                             "WHERE model = ? AND judge = ?", [model, judge])
        return parse_failure_result(df, spec.threshold, what=spec.what)

    return _check


def parse_failure_checks(specs: list[ParseFailureSpec]) -> list[dg.AssetChecksDefinition]:
    return [parse_failure_check(spec) for spec in specs]
