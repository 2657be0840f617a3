"""Schema and range checks on warehouse tables, run with great-expectations 1.x.

Suites are written as small dicts (each benchmark's ``suites.SUITES``) and turned into GX expectations on first use.
great_expectations is imported on the first validation because importing it costs ~3 s and most code
paths (and the Dagster code location) never validate anything.

A check step is cheap after that: the process keeps one GX context with one pandas data source and
batch definition (a frame is a batch parameter), and one expectation suite per spec list, built once. GX's
cost is per expectation (it builds a metric graph for each, whatever the rows), so a suite holds as few
expectations as say the same thing: a ``columns_exist`` spec is one table-level expectation, not one per column.

Spec types:

- ``columns_exist`` — ``columns``: each column must be present.
- ``column_not_null`` — ``column``.
- ``column_values_between`` — ``column``, ``min``, ``max``, ``allow_null`` (default False).
- ``column_values_in_set`` — ``column``, ``values``, ``allow_null`` (default False).
- ``columns_unique`` — ``columns``: one column → unique values; several → unique combinations.
"""

from __future__ import annotations

import functools
import json
import logging
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

MAX_UNEXPECTED_VALUES = 5


@dataclass
class QualityReport:
    """Outcome of one validation. ``evaluated`` counts GX expectations (a spec may expand to
    several, e.g. one per column of ``columns_exist``)."""

    success: bool
    evaluated: int
    failures: list[dict] = field(default_factory=list)


def between(column: str, lo: float | None, hi: float | None, allow_null: bool = True) -> dict:
    """A ``column_values_between`` spec (None = no bound on that side); every benchmark's suites use it."""
    return {"type": "column_values_between", "column": column, "min": lo, "max": hi, "allow_null": allow_null}


# The one suite of a shared table; every benchmark's own suites live in its package (``<benchmark>/suites.py``).
GENERATIONS: list[dict] = [
    {"type": "columns_exist", "columns": ["benchmark", "model", "item_id", "sample_index", "response", "error"]},
    {"type": "columns_unique", "columns": ["benchmark", "model", "item_id", "sample_index"]},
]


def columns_named(expectations: list[dict]) -> list[str]:
    """Every column a spec list names, each once, in order: all a validation needs to read."""
    names: list[str] = []
    for spec in expectations:
        for column in spec.get("columns", [spec.get("column")]):
            if column is not None and column not in names:
                names.append(column)
    return names


def _to_expectations(spec: dict) -> list:
    """GX expectation objects for one spec dict."""
    import great_expectations.expectations as gxe

    kind = spec.get("type")
    if kind == "columns_exist":
        # One expectation on the table's columns instead of one per column (each costs GX a metric graph);
        # a missing column is still reported as its own failure and counted as its own check (`_failures`).
        return [gxe.ExpectTableColumnsToMatchSet(column_set=list(spec["columns"]), exact_match=False)]
    if kind == "column_not_null":
        return [gxe.ExpectColumnValuesToNotBeNull(column=spec["column"])]
    if kind in ("column_values_between", "column_values_in_set"):
        col = spec["column"]
        if kind == "column_values_between":
            out = [gxe.ExpectColumnValuesToBeBetween(column=col, min_value=spec.get("min"), max_value=spec.get("max"))]
        else:
            out = [gxe.ExpectColumnValuesToBeInSet(column=col, value_set=list(spec["values"]))]
        # GX skips nulls in range and set checks, so "no nulls" needs its own expectation.
        if not spec.get("allow_null", False):
            out.append(gxe.ExpectColumnValuesToNotBeNull(column=col))
        return out
    if kind == "columns_unique":
        cols = list(spec["columns"])
        if len(cols) == 1:
            return [gxe.ExpectColumnValuesToBeUnique(column=cols[0])]
        return [gxe.ExpectCompoundColumnsToBeUnique(column_list=cols)]
    raise ValueError(f"unknown expectation spec type: {kind!r}")


def _plain(value: Any) -> Any:
    """JSON-friendly copy of an unexpected value (numpy scalars, NaN, tuples of a compound key)."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    # Anything else exotic (timestamps, decimals) becomes text so Dagster metadata can hold it.
    return value if isinstance(value, (str, int, float, bool)) else str(value)


def _failures(result) -> list[dict]:
    """The failures one GX result stands for: one per missing column for a ``columns_exist`` spec."""
    config = result.expectation_config
    observed = (result.result or {}).get("observed_value")
    if config.type == "expect_table_columns_to_match_set" and observed is not None:
        present = set(observed)
        return [{"expectation": "expect_column_to_exist", "columns": [column], "observed": "column missing"}
                for column in config.kwargs["column_set"] if column not in present]
    return [_failure(result)]


def _identity(config) -> str:
    """An expectation's type and arguments: the same for the suite's copy and a result's (GX adds the batch)."""
    kwargs = {k: v for k, v in config.kwargs.items() if k != "batch_id"}
    return json.dumps([config.type, kwargs], sort_keys=True, default=str)


def _checks_in(config) -> int:
    """How many checks one GX expectation counts for: a ``columns_exist`` spec one per column, as reported
    when each column was an expectation of its own."""
    if config.type == "expect_table_columns_to_match_set":
        return len(config.kwargs["column_set"])
    return 1


def _stage(result) -> int:
    """0: an error stopped the expectation while GX planned its metrics (its info is the error's own);
    1: while they were computed (its info is keyed by metric); 2: it was evaluated."""
    info = result.exception_info or {}
    if info.get("exception_message"):
        return 0
    return 1 if _error(result) else 2


def _error(result) -> str | None:
    """The message of the error that stopped an expectation, if one did."""
    error = (result.exception_info or {}).get("exception_message")
    if error is None:
        # exception_info is keyed by metric id when a metric raised (e.g. the column is missing).
        for info in (result.exception_info or {}).values():
            if isinstance(info, dict) and info.get("exception_message"):
                return info["exception_message"]
    return error or None


def _failure(result) -> dict:
    config = result.expectation_config
    kwargs = config.kwargs
    columns = list(kwargs["column_list"]) if "column_list" in kwargs else [kwargs.get("column")]
    body = result.result or {}
    failure: dict = {"expectation": config.type, "columns": columns}
    error = _error(result)
    if error:
        failure["observed"] = str(error)
        return failure
    count = body.get("unexpected_count")
    values = [_plain(c["value"]) for c in body.get("partial_unexpected_counts", [])][:MAX_UNEXPECTED_VALUES]
    failure["unexpected_count"] = count
    failure["unexpected_values"] = values
    failure["observed"] = f"{count} unexpected of {body.get('element_count')}, e.g. {values}"
    return failure


def _quiet_gx_logs() -> None:
    """Keep GX's INFO/DEBUG chatter (datasource registration) out of the run logs.

    Called before the import (child loggers inherit the parent's level) and again after it,
    because one GX module sets its own logger to INFO when imported.
    """
    for logger_name in ("great_expectations", "great_expectations.data_context.types.base"):
        logging.getLogger(logger_name).setLevel(logging.WARNING)


@functools.cache
def _frames_batch_definition():
    """The process's one GX context and the batch definition every frame is validated through.

    Registering a data source, asset and batch definition is a config write in GX, so it is done
    once; each validation passes its frame as the batch's ``dataframe`` parameter.
    """
    _quiet_gx_logs()
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    _quiet_gx_logs()
    config = DataContextConfig(
        # No data docs (the default ephemeral context makes a temp folder for them), no analytics,
        # and no tqdm bars on stderr for every validation (they would flood the run logs).
        store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False),
    )
    context = gx.get_context(mode="ephemeral", project_config=config)
    return (
        context.data_sources.add_pandas(name="frames")
        .add_dataframe_asset(name="frame")
        .add_batch_definition_whole_dataframe("whole_frame")
    )


_SUITES_BUILT: dict[str, Any] = {}  # canonical JSON of a spec list -> its GX ExpectationSuite


def _suite(expectations: list[dict]):
    """The GX suite for a spec list, built once per process (specs are plain data, so their JSON is the key).

    Unknown spec types raise ValueError here, before anything is validated.
    """
    key = json.dumps(expectations, sort_keys=True, default=str)
    if key not in _SUITES_BUILT:
        import great_expectations as gx

        built = [e for spec in expectations for e in _to_expectations(spec)]
        _frames_batch_definition()  # a suite can only be filled once a context exists (GX keeps one globally)
        suite = gx.ExpectationSuite(name=f"suite_{len(_SUITES_BUILT)}")
        for expectation in built:
            suite.add_expectation(expectation)
        _SUITES_BUILT[key] = suite
    return _SUITES_BUILT[key]


def _wide_integers(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with narrow NumPy integer columns as int64 (same values).

    GX compares a column with a range vectorized only when its dtype is int64 or float64; any other
    width (DuckDB's INTEGER arrives as int32) costs a Python call per value.
    """
    narrow = {column: "int64" for column, dtype in df.dtypes.items()
              if isinstance(dtype, np.dtype) and dtype.kind in "iu" and dtype.itemsize < 8}
    return df.astype(narrow) if narrow else df


def validate_frame(df: pd.DataFrame, expectations: list[dict]) -> QualityReport:
    """Validate ``df`` against spec dicts; never raises on bad data.

    Unknown spec types raise ValueError before anything is validated.
    """
    _quiet_gx_logs()
    suite = _suite(expectations)  # imports GX on the first call, its logs quieted
    from great_expectations.validator.v1_validator import Validator

    # The validator GX's `Batch.validate` would make, made directly: the frame is loaded once (GX fingerprints
    # it at each load) instead of once for a batch and again for its validator.
    validator = Validator(batch_definition=_frames_batch_definition(),
                          batch_parameters={"dataframe": _wide_integers(df)}, result_format="BOOLEAN_ONLY")
    # Most frames pass: a yes/no pass skips GX's unexpected-value lists; only a failing frame is
    # validated again for the counts and examples its failures report, by the same validator, whose
    # metrics computed in the first pass are kept.
    result = validator.validate_expectation_suite(suite)
    if not result.success:
        validator.result_format = "SUMMARY"
        result = validator.validate_expectation_suite(suite)
    # The order GX lists them in for this suite as it was before (an expectation per column): those an error
    # stopped as their metrics were planned, then as they were computed (e.g. a missing column), then the
    # rest; each part in the suite's order.
    failed = [r for r in result.results if not r.success]
    if failed:
        position = {_identity(config): i for i, config in enumerate(suite.expectation_configurations)}
        failed.sort(key=lambda r: (_stage(r), position[_identity(r.expectation_config)]))
    failures = [failure for r in failed for failure in _failures(r)]
    return QualityReport(
        success=bool(result.success),
        evaluated=sum(_checks_in(r.expectation_config) for r in result.results),
        failures=failures,
    )
