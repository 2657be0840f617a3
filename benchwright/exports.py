"""Exports in the field's formats, from the analyst snapshot (`dev.py export --to DIR`).

    DIR/leaderboards/<view>.csv and .parquet     every leaderboard view of the snapshot, as DuckDB's COPY writes it
    DIR/every_eval_ever/<benchmark>/<model>/<judge>.json
                                                 one Every Eval Ever record per benchmark × model × judge (judge
                                                 ``none`` where the benchmark has none): its metrics, intervals and
                                                 run metadata, validated against the project's schema

The Every Eval Ever schema (https://github.com/evaleval/every_eval_ever, MIT) is kept in
benchwright/formats/every_eval_ever/ with its source commit; its package is not installable here, so records
are checked with ``jsonschema`` against that file. The rows come from sql/core/queries/every_eval_ever_results.sql.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import tempfile
import time
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from benchwright import paths
from benchwright.benchmarks import declared
from benchwright.interrupts import interrupts_deferred

EEE_FOLDER = Path(__file__).resolve().parent / "formats" / "every_eval_ever"
EEE_SCHEMA = EEE_FOLDER / "eval.schema.json"
RESULTS_SQL = "core/queries/every_eval_ever_results.sql"
NO_JUDGE = "none"   # the file name of a record whose benchmark has no judge
# The snapshot's leaderboards: its views with 'leaderboard' in their name (sql/*/views).
LEADERBOARDS_SQL = "core/queries/export_leaderboard_views.sql"
EVALUATED_SQL = "core/queries/export_evaluated_at.sql"


def leaderboard_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [name for (name,) in con.execute(paths.sql_file(LEADERBOARDS_SQL).read_text(encoding="utf-8")).fetchall()]


def _quoted_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def write_leaderboards(con: duckdb.DuckDBPyConnection, folder: Path) -> list[Path]:
    """Each leaderboard view as CSV (with a header) and Parquet, by DuckDB's COPY; returns the files."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for view in leaderboard_views(con):
        for suffix, options in ((".csv", "FORMAT csv, HEADER"), (".parquet", "FORMAT parquet")):
            target = folder / f"{view}{suffix}"
            con.execute(f"COPY (SELECT * FROM {view}) TO {_quoted_path(target)} ({options})")
            written.append(target)
    return written


def eee_schema() -> dict:
    return json.loads(EEE_SCHEMA.read_text(encoding="utf-8"))


def validate(records: Iterable[dict]) -> None:
    """Raise ValueError naming the first record the Every Eval Ever schema refuses, and why."""
    import jsonschema

    validator = jsonschema.Draft7Validator(eee_schema())
    for record in records:
        errors = sorted(validator.iter_errors(record), key=lambda e: list(e.absolute_path))
        if errors:
            where = "/".join(map(str, errors[0].absolute_path)) or "(record)"
            raise ValueError(f"{record.get('evaluation_id')}: not an Every Eval Ever record at {where}: "
                             f"{errors[0].message}")


def _version() -> str:
    return tomllib.loads((paths.ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def _flag(value: Any) -> str:
    return "unknown" if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)) \
        else str(bool(value)).lower()


def _number(value: Any) -> float | None:
    return None if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)) else float(value)


def _model_info(name: Any, slug: str, simulated: Any) -> dict:
    # The registry slug is our id: the registry maps it to the litellm model string it called.
    return {"name": str(name or slug), "id": slug,
            "additional_details": {"deployment_type": "unknown", "model_availability": "unknown",
                                   "benchwright_registry_slug": slug, "simulated": _flag(simulated)}}


def _result(row: dict, method_version: str) -> dict:
    parameter = row["parameter"] if isinstance(row["parameter"], str) else None
    metric_config: dict[str, Any] = {
        "evaluation_description": row["description"], "metric_id": row["metric"], "metric_name": row["metric"],
        "lower_is_better": bool(row["lower_is_better"]), "score_type": "continuous",
        "min_score": _number(row["min_score"]), "max_score": _number(row["max_score"]),
        "additional_details": {"leaderboard": row["leaderboard"], "method_version": method_version},
    }
    if parameter:
        metric_config["metric_parameters"] = {"control" if row["metric"] == "bradley_terry_rating" else "variant":
                                              parameter}
    if row["judge"]:
        metric_config["llm_scoring"] = {
            "judges": [{"model_info": _model_info(row["judge_name"], row["judge"], row["judge_simulated"])}],
            "input_prompt": f"the judge prompt of Benchwright's {row['benchmark']} method, version {method_version} "
                            f"(benchwright/{row['benchmark']}/)"}
    score_details: dict[str, Any] = {"score": float(row["score"])}
    uncertainty: dict[str, Any] = {}
    if _number(row["ci_lower"]) is not None and _number(row["ci_upper"]) is not None:
        uncertainty["confidence_interval"] = {"lower": float(row["ci_lower"]), "upper": float(row["ci_upper"]),
                                              "confidence_level": float(row["confidence_level"]),
                                              "method": row["ci_method"]}
    if _number(row["n"]) is not None:
        uncertainty["num_samples"] = int(row["n"])
    if _number(row["bootstrap_rounds"]) is not None:
        uncertainty["num_bootstrap_samples"] = int(row["bootstrap_rounds"])
    if uncertainty:
        score_details["uncertainty"] = uncertainty
    return {"evaluation_result_id": row["metric"] + (f":{parameter}" if parameter else ""),
            "evaluation_name": f"{row['benchmark']} {row['metric']}" + (f" ({parameter})" if parameter else ""),
            "source_data": {"dataset_name": row["benchmark"], "source_type": "other",
                            "additional_details": {"benchmark": row["benchmark"]}},
            "metric_config": metric_config, "score_details": score_details}


def eee_records(results: pd.DataFrame, *, retrieved: float, evaluated: dict[tuple[str, str], str] | None = None
                ) -> list[dict]:
    """One Every Eval Ever record per benchmark × judge × model of ``results`` (the rows of RESULTS_SQL).
    Rows without a score (nothing measured yet) are left out; ``evaluated``: (benchmark, model) -> ISO time of the
    newest call that made its results."""
    versions = {b.name: b.version for b in declared()}
    evaluated = evaluated or {}
    records = []
    scored = results[results["score"].notna()]
    for (benchmark, judge, model), rows in scored.groupby(["benchmark", "judge", "model"], sort=True):
        first = rows.iloc[0]
        method_version = versions.get(benchmark, "unknown")
        record: dict[str, Any] = {
            "schema_version": eee_schema()["version"],
            "evaluation_id": f"benchwright/{benchmark}/{judge or NO_JUDGE}/{model}",
            "retrieved_timestamp": f"{retrieved:.6f}",
            "source_metadata": {
                "source_name": f"Benchwright {benchmark}", "source_type": "evaluation_run",
                "source_organization_name": "Benchwright", "evaluator_relationship": "third_party",
                "additional_details": {"benchmark": benchmark, "method_version": method_version,
                                       "judge": judge or NO_JUDGE, "simulated": _flag(first["simulated"])}},
            "eval_library": {"name": "benchwright", "version": _version()},
            "model_info": _model_info(first["model_name"], model, first["model_simulated"]),
            "evaluation_results": [_result(row, method_version) for row in rows.to_dict("records")],
        }
        if (benchmark, model) in evaluated:
            record["evaluation_timestamp"] = evaluated[(benchmark, model)]
        records.append(record)
    return records


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def record_path(folder: Path, record: dict) -> Path:
    _, benchmark, judge, model = record["evaluation_id"].split("/", 3)
    return folder / _safe(benchmark) / _safe(model) / f"{_safe(judge)}.json"


def read_eee(folder: Path) -> pd.DataFrame:
    """The scores of the Every Eval Ever records under ``folder``, one row per result (what a reader gets back)."""
    rows = []
    for path in sorted(folder.rglob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        _, benchmark, judge, model = record["evaluation_id"].split("/", 3)
        for result in record["evaluation_results"]:
            interval = result["score_details"].get("uncertainty", {}).get("confidence_interval", {})
            parameters = result["metric_config"].get("metric_parameters", {})
            rows.append({"benchmark": benchmark, "judge": "" if judge == NO_JUDGE else judge, "model": model,
                         "metric": result["metric_config"]["metric_id"],
                         "parameter": next(iter(parameters.values()), None),
                         "score": result["score_details"]["score"],
                         "ci_lower": interval.get("lower"), "ci_upper": interval.get("upper")})
    return pd.DataFrame(rows, columns=["benchmark", "judge", "model", "metric", "parameter", "score", "ci_lower",
                                       "ci_upper"])


EXPORTED = ("leaderboards", "every_eval_ever")  # the folders an export writes under its target, and replaces whole


def export(snapshot: Path, target: Path, *, retrieved: float | None = None) -> dict[str, int]:
    """Write the leaderboards and the Every Eval Ever records of ``snapshot`` under ``target``. Returns what was
    written.

    They are written in a folder of their own inside ``target`` first, then each of ``EXPORTED`` takes the place of
    the one there, Ctrl-C and `kill` deferred for those few renames: an export never leaves files of an earlier one
    (a model or judge since removed would otherwise keep its record beside the new ones), and one that fails — a
    record the schema refuses, Ctrl-C — leaves the earlier export as it was. The rest of ``target`` is not
    touched."""
    target.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".export-", dir=target))
    try:
        con = duckdb.connect(str(snapshot), read_only=True)
        try:
            files = write_leaderboards(con, staging / "leaderboards")
            results = con.execute(paths.sql_file(RESULTS_SQL).read_text(encoding="utf-8")).df()
            evaluated = {(b, m): t.isoformat() + "Z" for b, m, t in con.execute(
                paths.sql_file(EVALUATED_SQL).read_text(encoding="utf-8")).fetchall()}
        finally:
            con.close()
        records = eee_records(results, retrieved=time.time() if retrieved is None else retrieved, evaluated=evaluated)
        validate(records)
        for record in records:
            path = record_path(staging / "every_eval_ever", record)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        (staging / "every_eval_ever").mkdir(exist_ok=True)
        with interrupts_deferred():  # a Ctrl-C waits for the renames: no export is left half swapped
            for name in EXPORTED:
                if (target / name).exists():
                    (target / name).rename(staging / f"{name}.earlier")
                (staging / name).rename(target / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return {"leaderboard_files": len(files), "every_eval_ever_records": len(records),
            "every_eval_ever_results": sum(len(r["evaluation_results"]) for r in records)}
