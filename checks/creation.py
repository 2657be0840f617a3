"""Asset checks for the Creation tables (docs/ARCHITECTURE.md#checks). Thin: the measures come from benchwright/.

Partitioned checks run with the partition they guard, so a bad judge is caught in its own run.
"""


import dagster as dg
import pandas as pd

from assets.creation import creation_generations
from assets.creation import creation_pairwise_judgments, creation_vfs_judgments
from assets.partitions import model_and_judge, model_judge_partitions
from benchwright.creation import metrics
from checks.factories import ParseFailureSpec, parse_failure_checks
from checks.one_step import asset_check
from checks.results import answer_injection_check
from resources.warehouse import Warehouse

# Below this exact swap consistency a judge's verdicts depend on where the answers stand.
SWAP_CONSISTENCY_THRESHOLD = 0.6


creation_parse_failure_checks = parse_failure_checks([
    ParseFailureSpec(creation_pairwise_judgments, "pairwise_parse_failures", "creation_pairwise_judgments",
                     "Share of pairwise verdicts that could not be parsed, per judge partition."),
    ParseFailureSpec(creation_vfs_judgments, "vfs_parse_failures", "creation_vfs_judgments",
                     "Share of VFS judgments whose candidate score could not be parsed."),
])


@asset_check(asset=creation_pairwise_judgments, partitions_def=model_judge_partitions,
             description="Position-swap consistency of the judge on this model's pairs (a WARN: it measures "
                         "the judge, the data are not corrupt).")
def position_swap_consistency(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    model, judge = model_and_judge(context)
    df = warehouse.query("SELECT * FROM creation_pairwise_judgments WHERE model = ? AND judge = ? AND error IS NULL",
                         [model, judge])
    quality = metrics.judge_quality(df)
    row = quality.iloc[0].to_dict() if len(quality) else {}
    exact = row.get("exact_consistency")
    metadata = {key: (float(row[key]) if row.get(key) is not None and pd.notna(row[key]) else float("nan"))
                for key in ("exact_consistency", "relaxed_consistency", "p_prefer_first", "p_prefer_longer")}
    return dg.AssetCheckResult(
        passed=exact is None or pd.isna(exact) or exact >= SWAP_CONSISTENCY_THRESHOLD,
        severity=dg.AssetCheckSeverity.WARN,
        description=f"exact consistency {exact if exact is not None else 'n/a'} over {row.get('pairs', 0)} pairs; "
                    f"threshold {SWAP_CONSISTENCY_THRESHOLD}",
        metadata={**metadata, "pairs": int(row.get("pairs") or 0), "threshold": SWAP_CONSISTENCY_THRESHOLD},
    )


@asset_check(asset=creation_pairwise_judgments, partitions_def=model_judge_partitions, blocking=True,
             description="No orphan judgments (every judged answer exists) and both orders present for every item.")
def pairwise_integrity(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    model, judge = model_and_judge(context)
    with warehouse.together():  # two reads on one attach
        orphans = warehouse.query_file("creation/checks/creation_orphan_judgments.sql", [model, judge])
        missing = warehouse.query_file("creation/checks/creation_missing_orders.sql", [model, judge])
    return dg.AssetCheckResult(
        passed=orphans.empty and missing.empty,
        metadata={"orphan_judgments": len(orphans), "items_missing_an_order": len(missing),
                  "examples": dg.MetadataValue.json(orphans["item_id"].head(5).tolist() + missing["item_id"].head(5).tolist())},
    )


creation_answer_injection = answer_injection_check(creation_generations, "creation")
