"""Redundancy with other benchmarks (README.md#redundancy-with-other-benchmarks): their scores from a drop folder, and Spearman / R² of
each of our leaderboards against each of them. Logic in benchwright.redundancy."""

from pathlib import Path

import dagster as dg

from assets.common import EAGER, LOAD_WHEN_MISSING, record_problems, table_metadata
from assets.sources import benchmark_score_files
from benchwright import benchmarks, paths, redundancy
from benchwright.steps import code_version
from resources.registry import Registry
from resources.warehouse import Warehouse, read_sql

# Every declared benchmark's score queries (benchwright.benchmarks.ScoreQuery) and the assets writing what they read.
SCORE_QUERIES = [score for benchmark in benchmarks.declared() for score in benchmark.scores]
LEADERBOARDS = list(dict.fromkeys(dg.AssetKey(score.asset) for score in SCORE_QUERIES))


class BenchmarkScoresConfig(dg.Config):
    folder: str = ""  # default: drops/benchmark_scores next to the warehouse


def scores_drop_folder(warehouse: Warehouse, configured: str = "") -> Path:
    return paths.drop_folder(warehouse.database, paths.BENCHMARK_SCORES, configured)


@dg.asset(
    deps=[benchmark_score_files],
    group_name="datasets",
    code_version=code_version(redundancy),
    # Loaded once by itself (an empty folder gives an empty table); then when the folder changes.
    automation_condition=LOAD_WHEN_MISSING,
    kinds={"duckdb"},
    description="Other benchmarks' scores per model, from every CSV in drops/benchmark_scores/ (a `model` column, "
                "then one column per benchmark). Models are matched to the registry by slug or display name; "
                "a cell that is not a number, a broken CSV line and a repeated (benchmark, model) are recorded in "
                "`dataset_problems`.",
)
def external_benchmark_scores(context: dg.AssetExecutionContext, config: BenchmarkScoresConfig, warehouse: Warehouse,
                              registry: Registry) -> dg.MaterializeResult:
    folder = scores_drop_folder(warehouse, config.folder)
    aliases = {}
    for entry in [*registry.candidates(), *registry.judges()]:
        aliases[redundancy.model_key(entry.display_name)] = entry.slug
        aliases[redundancy.model_key(entry.slug)] = entry.slug
    scores, problems = redundancy.read_scores_folder(folder, aliases)
    record_problems(context, warehouse, problems, "redundancy", str(folder), replace_whole_benchmark=True)
    warehouse.replace_rows("external_benchmark_scores", scores, match={})
    unmatched = sorted(set(scores.loc[~scores["model"].isin(aliases.values()), "model"]))
    if unmatched:
        context.log.info(f"{len(unmatched)} models of the score files are not in the registry: {unmatched[:10]}")
    return dg.MaterializeResult(metadata={
        **table_metadata(scores, ["benchmark", "model", "score", "source_file"]),
        "folder": dg.MetadataValue.path(str(folder)), "benchmarks": scores["benchmark"].nunique(),
        "problems": len(problems), "refused_records": len(problems), "unmatched_models": len(unmatched)})


@dg.asset(
    deps=[external_benchmark_scores, *LEADERBOARDS],
    group_name="metrics",
    code_version=code_version(redundancy, files=[paths.sql_file(score.sql_file) for score in SCORE_QUERIES]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Spearman rank correlation and R² of each of our leaderboards (per judge) against each other "
                "benchmark's scores, across the models scored on both (README.md#redundancy-with-other-benchmarks; NULL below 3 models). "
                "View: `benchmark_redundancy_report`.",
)
def benchmark_redundancy(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
    ours = warehouse.query(redundancy.our_scores_sql([read_sql(score.sql_file) for score in SCORE_QUERIES]))
    theirs = warehouse.query("SELECT benchmark, model, score FROM external_benchmark_scores")
    table = redundancy.redundancy(ours, theirs)
    warehouse.replace_rows("benchmark_redundancy", table, match={})
    return dg.MaterializeResult(metadata=table_metadata(
        table, ["leaderboard", "judge", "other_benchmark", "n_models", "spearman", "r2"]))
