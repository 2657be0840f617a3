"""Asset checks for the URS tables (DESIGN §5): judge parse failures, schema and ranges (residual PII:
checks/residual_pii.py).

Thin: the measures come from benchwright/ (parser, PII scanner, suites in benchwright.urs.SUITES).
"""

import dagster as dg

from assets.partitions import model_and_judge, model_judge_partitions, models_partitions
from assets.urs import (urs_cross_judgments, urs_cross_validation, urs_generations, urs_items, urs_judgments,
                        urs_leaderboard, urs_rating_bias)
from benchwright.urs import SUITES
from checks.results import PARSE_FAILURE_THRESHOLD, answer_injection_check, parse_failure_result, schema_result
from resources.warehouse import Warehouse


# --- parse failures ------------------------------------------------------------------------------

@dg.asset_check(asset=urs_judgments, partitions_def=model_judge_partitions, blocking=True,
                description="Share of URS judge outputs whose score dict could not be parsed (no dict, missing "
                            "final score, a score outside 1-10 or not an integer), per judge partition.")
def urs_parse_failures(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    model, judge = model_and_judge(context)
    return parse_failure_result(warehouse.query(
        "SELECT raw_text, parse_ok, parse_problem, error FROM urs_judgments WHERE model = ? AND judge = ?", [model, judge]))


@dg.asset_check(asset=urs_cross_judgments, blocking=True,
                description="Share of unparsable outputs per judge in the cross-validation grid; fails when any "
                            "judge is above the threshold.")
def urs_cross_parse_failures(warehouse: Warehouse) -> dg.AssetCheckResult:
    df = warehouse.query("SELECT judge, raw_text, parse_ok, error FROM urs_cross_judgments WHERE error IS NULL")
    rates = {judge: float((~rows["parse_ok"]).mean()) for judge, rows in df.groupby("judge")}
    failing = sorted(judge for judge, rate in rates.items() if rate > PARSE_FAILURE_THRESHOLD)
    examples = [str(t)[:300] for t in df.loc[~df["parse_ok"], "raw_text"].head(3)]
    return dg.AssetCheckResult(
        passed=not failing,
        severity=dg.AssetCheckSeverity.ERROR,
        description=(f"judges above {PARSE_FAILURE_THRESHOLD:.0%} parse failures: {failing}" if failing
                     else f"every judge at or below {PARSE_FAILURE_THRESHOLD:.0%} parse failures"),
        metadata={"parse_failure_rate_by_judge": dg.MetadataValue.json(rates), "judgments": len(df),
                  "threshold": PARSE_FAILURE_THRESHOLD, "examples": dg.MetadataValue.json(examples)},
    )


urs_answer_injection = answer_injection_check(urs_generations, "urs")


# --- schema and ranges (great-expectations via benchwright.quality) --------------------------------

@dg.asset_check(asset=urs_items, name="schema_and_ranges")
def urs_items_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM urs_items"), SUITES["urs_items"], "urs_items")


@dg.asset_check(asset=urs_generations, partitions_def=models_partitions, name="schema_and_ranges")
def urs_generations_schema(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM generations WHERE benchmark = 'urs' AND model = ?",
                                          [context.partition_key]), SUITES["urs_generations"], "urs_generations")


@dg.asset_check(asset=urs_judgments, partitions_def=model_judge_partitions, name="schema_and_ranges")
def urs_judgments_schema(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    model, judge = model_and_judge(context)
    return schema_result(warehouse.query("SELECT * FROM urs_judgments WHERE model = ? AND judge = ?",
                                          [model, judge]), SUITES["urs_judgments"], "urs_judgments")


@dg.asset_check(asset=urs_cross_judgments, name="schema_and_ranges")
def urs_cross_judgments_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM urs_cross_judgments"),
                         SUITES["urs_cross_judgments"], "urs_cross_judgments")


@dg.asset_check(asset=urs_leaderboard, name="schema_and_ranges")
def urs_leaderboard_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM urs_leaderboard"),
                         SUITES["urs_leaderboard"], "urs_leaderboard")


@dg.asset_check(asset=urs_cross_validation, name="schema_and_ranges")
def urs_cross_validation_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM urs_cross_validation"),
                         SUITES["urs_cross_validation"], "urs_cross_validation")


@dg.asset_check(asset=urs_rating_bias, name="schema_and_ranges")
def urs_rating_bias_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM urs_rating_bias"),
                         SUITES["urs_rating_bias"], "urs_rating_bias")
