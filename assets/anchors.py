"""Small anchor sets (README.md#small-anchor-sets): per benchmark and judge (Creation's and the imports' pairwise
judgments, URS's final scores), an item model fitted on the judgments we hold, the anchors chosen, and every model's
full score estimated from its anchors. Logic in benchwright.anchors; a run on the anchors alone is
`dev.py run --limit anchors` (scripts/scope.py)."""

import dagster as dg
import duckdb

from assets.common import EAGER, table_metadata
from assets.creation import PANEL_JUDGMENTS, creation_pairwise_judgments
from assets.interop import IMPORT_ASSETS, PAIRWISE_SQL, _anchors as baselines_by_source
from assets.urs import URS_PANEL_JUDGMENTS, urs_judgments
from benchwright import anchors, ratings, steps
from benchwright.paths import sql_file
from resources.warehouse import Warehouse

JUDGMENT_ASSETS = [creation_pairwise_judgments, PANEL_JUDGMENTS[0], *IMPORT_ASSETS, urs_judgments, URS_PANEL_JUDGMENTS]
URS_SCORES_SQL = "urs/queries/anchor_scores.sql"


def scored_sets(warehouse: Warehouse) -> list[anchors.ScoredSet]:
    """Every benchmark's cells per judge: the pairwise judgments of each source with a baseline, scored as
    interop_ratings scores them by default (Arena-Hard's sources: a strong verdict is 3 battles, a one-game record
    read twice; one battle a judgment otherwise), and URS's final scores."""
    baselines = baselines_by_source(warehouse)
    arena_hard = {source for source in baselines if source.startswith("arena_hard:")}
    weights = {source: ratings.arena_hard_weights(3) for source in arena_hard}
    return [*anchors.pairwise_sets(warehouse.query_file(PAIRWISE_SQL), baselines, weights, arena_hard),
            *anchors.urs_sets(warehouse.query_file(URS_SCORES_SQL))]


class AnchorSetsConfig(dg.Config):
    seed: int = 0
    """Seed of the k-means start that chooses the anchors."""
    min_models: int = anchors.MIN_MODELS
    """Fewer judged models than this: 'not enough data', no anchors."""
    min_items: int = anchors.MIN_ITEMS
    """Fewer judged items than this: 'not enough data', no anchors."""
    from_snapshot: str = ""
    """A run on the anchors alone (`dev.py run --limit anchors`) copies the sets fitted in the full home from its
    analyst snapshot (this path) instead of fitting on the few judgments its own home holds."""


@dg.asset(
    deps=JUDGMENT_ASSETS,
    group_name="metrics",
    code_version=steps.code_version(anchors, files=[sql_file(PAIRWISE_SQL), sql_file(URS_SCORES_SQL)]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Per benchmark (our Creation judgments, each imported source with a baseline, URS's final scores) "
                "and judge: a two-parameter logistic item model fitted on the judgments we hold and an anchor set of about a fifth of the items "
                "(at most 100) chosen by k-means on the item parameters, each anchor weighted by its cluster's share "
                "(tinyBenchmarks). Tables `anchor_fits` (one row per source and judge; 'not enough data' below 10 "
                "models or 50 items, with no anchors) and `anchor_items` (every fitted item, anchors marked).",
)
def anchor_sets(context: dg.AssetExecutionContext, config: AnchorSetsConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    if config.from_snapshot:
        with duckdb.connect(config.from_snapshot, read_only=True) as full:
            fits = full.execute("SELECT * FROM anchor_fits").df()[anchors.FIT_COLUMNS]
            items = full.execute("SELECT * FROM anchor_items").df()[anchors.ITEM_COLUMNS]
        context.log.info(f"anchor sets copied from the full home's snapshot {config.from_snapshot}")
    else:
        fits, items = anchors.anchor_tables(scored_sets(warehouse), seed=config.seed, min_models=config.min_models,
                                            min_items=config.min_items)
    warehouse.write_tables([("anchor_fits", fits, {}), ("anchor_items", items, {})])
    for fit in fits[fits["status"] == anchors.NOT_ENOUGH].itertuples():
        context.log.info(f"no anchor set for {fit.benchmark} / {fit.source} / {fit.judge}: {fit.reason}")
    return dg.MaterializeResult(metadata={
        **table_metadata(fits, ["benchmark", "source", "judge", "status", "models", "items", "anchors"]),
        "anchor_items": int(items["is_anchor"].sum()) if len(items) else 0,
        "fitted": int((fits["status"] == anchors.FITTED).sum()),
        "copied_from": dg.MetadataValue.path(config.from_snapshot) if config.from_snapshot else "fitted here"})


class AnchorEstimatesConfig(dg.Config):
    bootstrap_rounds: int = anchors.BOOTSTRAP_ROUNDS
    """Resamples of the anchors for the 95 % interval."""
    seed: int = 0


@dg.asset(
    deps=[anchor_sets, *JUDGMENT_ASSETS],
    group_name="metrics",
    code_version=steps.code_version(anchors, files=[sql_file(PAIRWISE_SQL), sql_file(URS_SCORES_SQL)]),
    automation_condition=EAGER,
    kinds={"duckdb"},
    description="Each judged model's full-benchmark score (a pairwise benchmark's win rate against the baseline, "
                "URS's mean final score) estimated from its anchor judgments alone: the mean of the anchors' weighted result and the 2PL prediction of the "
                "other items, with a 95 % bootstrap interval over the anchors (tinyBenchmarks' gp-IRT). In the full "
                "home beside the observed full score; in a `dev.py run --limit anchors` home, the run's result.",
)
def anchor_estimates(context: dg.AssetExecutionContext, config: AnchorEstimatesConfig,
                     warehouse: Warehouse) -> dg.MaterializeResult:
    fits = warehouse.query("SELECT * FROM anchor_fits")
    items = warehouse.query("SELECT * FROM anchor_items")
    table, problems = anchors.estimate_table(scored_sets(warehouse), fits, items, rounds=config.bootstrap_rounds,
                                             seed=config.seed)
    warehouse.replace_rows("anchor_estimates", table, match={})
    for problem in problems:
        context.log.info(f"not estimated: {problem}")
    return dg.MaterializeResult(metadata=table_metadata(
        table, ["benchmark", "source", "judge", "model", "estimate", "estimate_low", "estimate_high", "observed_score",
                "anchors_answered", "items_judged"],
        not_estimated=dg.MetadataValue.json(problems)))
