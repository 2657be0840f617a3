"""Asset checks for the GAP tables: schema and ranges, quarantine share, train/val image leakage."""

import dagster as dg

from assets.gap import gap_game_logs, gap_generations, gap_reliability, gap_score_judgments, gap_vqa_dataset
from assets.partitions import model_and_judge, model_judge_partitions
from benchwright.gap.suites import SUITES
from checks.factories import SchemaSpec, schema_checks
from checks.one_step import asset_check
from checks.results import answer_injection_check, parse_failure_result
from resources.warehouse import Warehouse

QUARANTINE_WARN_SHARE = 0.05


gap_schema_checks = schema_checks([SchemaSpec(gap_reliability, "gap_player_reliability", SUITES["gap_player_reliability"])])


@asset_check(asset=gap_game_logs, description="Share of quarantined log lines; warns above 5 %.")
def gap_log_quarantine_share(warehouse: Warehouse) -> dg.AssetCheckResult:
    counts = warehouse.query_file("gap/queries/log_line_counts.sql").iloc[0]
    total = int(counts["marks"]) + int(counts["quarantined"])
    share = int(counts["quarantined"]) / total if total else 0.0
    reasons = warehouse.query_file("gap/checks/quarantine_reasons.sql")
    return dg.AssetCheckResult(passed=share <= QUARANTINE_WARN_SHARE, severity=dg.AssetCheckSeverity.WARN,
                               metadata={"quarantined_share": share, "lines": total,
                                         "top_reasons": dg.MetadataValue.json(dict(zip(reasons["reason"], map(int, reasons["n"]))))})


@asset_check(asset=gap_vqa_dataset, blocking=True, description="No image appears in both train and val.")
def gap_vqa_no_image_leakage(warehouse: Warehouse) -> dg.AssetCheckResult:
    both = warehouse.query_file("gap/checks/pictures_in_both_splits.sql")
    return dg.AssetCheckResult(passed=both.empty, severity=dg.AssetCheckSeverity.ERROR,
                               metadata={"images_in_both_splits": dg.MetadataValue.json(both["image_id"].tolist()[:20])})


@asset_check(asset=gap_score_judgments, partitions_def=model_judge_partitions, blocking=True,
             description="Share of scoring-judge outputs without one number in [0, 1] (failed calls excluded).")
def gap_score_parse_failures(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    model, judge = model_and_judge(context)
    return parse_failure_result(warehouse.query(
        "SELECT raw_text, parse_ok, parse_problem, judge_error AS error FROM gap_score_judgments "
        "WHERE answer_error IS NULL AND model = ? AND judge = ?", [model, judge]))


gap_answer_injection = answer_injection_check(gap_generations, "gap")
