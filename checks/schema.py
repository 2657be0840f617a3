"""Schema and range suites (great-expectations 1.x, via benchwright.quality) on every Creation table."""


import dagster as dg

from assets.creation import creation_generations
from assets.creation import creation_pairwise_judgments, creation_vfs_judgments
from assets.creation import creation_leaderboard, judge_quality
from assets.partitions import model_and_judge, model_judge_partitions, models_partitions
from benchwright.quality import SUITES
from checks.results import schema_result
from resources.warehouse import Warehouse


@dg.asset_check(asset=creation_generations, partitions_def=models_partitions, name="schema_and_ranges")
def generations_schema(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM generations WHERE benchmark = 'creation' AND model = ?",
                                   [context.partition_key]), SUITES["generations"], "generations")


@dg.asset_check(asset=creation_pairwise_judgments, partitions_def=model_judge_partitions, name="schema_and_ranges")
def pairwise_schema(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    model, judge = model_and_judge(context)
    return schema_result(warehouse.query("SELECT * FROM creation_pairwise_judgments WHERE model = ? AND judge = ?",
                                   [model, judge]), SUITES["creation_pairwise_judgments"], "creation_pairwise_judgments",
                         answered_expectations=SUITES["creation_pairwise_judgments_answered"])


@dg.asset_check(asset=creation_vfs_judgments, partitions_def=model_judge_partitions, name="schema_and_ranges")
def vfs_schema(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    model, judge = model_and_judge(context)
    return schema_result(warehouse.query("SELECT * FROM creation_vfs_judgments WHERE model = ? AND judge = ?",
                                   [model, judge]), SUITES["creation_vfs_judgments"], "creation_vfs_judgments")


@dg.asset_check(asset=creation_leaderboard, name="schema_and_ranges")
def leaderboard_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM creation_leaderboard"),
                         SUITES["creation_leaderboard"], "creation_leaderboard")


@dg.asset_check(asset=judge_quality, name="schema_and_ranges")
def judge_quality_schema(warehouse: Warehouse) -> dg.AssetCheckResult:
    return schema_result(warehouse.query("SELECT * FROM judge_quality"), SUITES["judge_quality"], "judge_quality")
