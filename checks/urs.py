"""Asset checks for the URS tables (docs/ARCHITECTURE.md#checks): judge parse failures, schema and ranges (residual PII:
checks/residual_pii.py).

Thin: the measures come from benchwright/ (parser, PII scanner, suites in benchwright.urs.suites.SUITES).
"""

import dagster as dg

from assets.urs import (urs_cross_judgments, urs_cross_validation, urs_generations, urs_items, urs_judgments,
                        urs_leaderboard, urs_rating_bias)
from benchwright.urs.suites import SUITES
from checks.factories import ParseFailureSpec, SchemaSpec, parse_failure_checks, schema_checks
from checks.one_step import asset_check
from checks.results import PARSE_FAILURE_THRESHOLD, answer_injection_check
from resources.warehouse import Warehouse


# --- parse failures ------------------------------------------------------------------------------

urs_parse_failure_checks = parse_failure_checks([
    ParseFailureSpec(urs_judgments, "urs_parse_failures", "urs_judgments",
                     "Share of URS judge outputs whose score dict could not be parsed (no dict, missing final score, "
                     "a score outside 1-10 or not an integer), per judge partition."),
])


@asset_check(asset=urs_cross_judgments, blocking=True,
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

urs_schema_checks = schema_checks([
    SchemaSpec(urs_items, "urs_items", SUITES["urs_items"]),
    SchemaSpec(urs_generations, "generations", SUITES["urs_generations"], scope="model", benchmark="urs",
               report_as="urs_generations"),
    SchemaSpec(urs_judgments, "urs_judgments", SUITES["urs_judgments"], scope="model_judge"),
    SchemaSpec(urs_cross_judgments, "urs_cross_judgments", SUITES["urs_cross_judgments"]),
    SchemaSpec(urs_leaderboard, "urs_leaderboard", SUITES["urs_leaderboard"]),
    SchemaSpec(urs_cross_validation, "urs_cross_validation", SUITES["urs_cross_validation"]),
    SchemaSpec(urs_rating_bias, "urs_rating_bias", SUITES["urs_rating_bias"]),
])
