"""The main job's stages (scripts/orchestrate.run_stages): an asset shares a run with its parents of the same
partitions and follows every other parent's stage, so no run waits on another run of its stage, and each run
lists parents before readers. With runs in parallel, a run splits where its assets are independent
(`independent_runs`)."""

import dagster as dg

from definitions import defs
from scripts.orchestrate import independent_runs, run_stages

models = dg.DynamicPartitionsDefinition(name="stage_test_models")


@dg.asset
def items():
    return None


@dg.asset(partitions_def=models, deps=[items])
def answers():
    return None


@dg.asset(partitions_def=models, deps=[answers])
def scores():
    return None


@dg.asset(deps=[scores])
def leaderboard():
    return None


@dg.asset(deps=[items])
def item_stats():
    return None


@dg.asset(deps=[leaderboard, item_stats])
def snapshot():
    return None


@dg.asset
def urs_items():
    return None


@dg.asset(deps=[urs_items])
def urs_references():
    return None


@dg.asset(deps=[urs_items])
def urs_leaderboard():
    return None


@dg.asset(deps=[items, urs_leaderboard])
def benchmark_redundancy():
    return None


@dg.asset(deps=[benchmark_redundancy])
def report():
    return None


def _names(stages):
    return [[key.to_user_string() for key in stage] for stage in stages]


def test_same_partitions_share_a_stage_in_dependency_order():
    graph = dg.Definitions(assets=[snapshot, leaderboard, scores, answers, item_stats, items]).resolve_asset_graph()
    # item_stats could run with items; the readers of the per-model scores wait for them, in one run.
    assert _names(run_stages(graph)) == [["items", "item_stats"], ["answers", "scores"], ["leaderboard", "snapshot"]]


def test_the_shipped_graph_has_no_run_waiting_on_its_own_stage():
    graph = defs.resolve_asset_graph()
    stages = run_stages(graph)
    stage_of = {key: number for number, stage in enumerate(stages) for key in stage}
    materializable = {key for key in graph.get_all_asset_keys() if graph.get(key).is_materializable}
    assert sum(len(stage) for stage in stages) == len(stage_of) == len(materializable)
    for key in materializable:
        for parent in graph.get(key).parent_keys & materializable:
            if graph.get(parent).partitions_def == graph.get(key).partitions_def:
                # same run: the parent earlier in the stage's order (Dagster orders the steps; the plan's direct
                # calls follow the list)
                assert stage_of[parent] <= stage_of[key], (parent, key)
                if stage_of[parent] == stage_of[key]:
                    assert stages[stage_of[key]].index(parent) < stages[stage_of[key]].index(key), (parent, key)
            else:  # another run: an earlier stage
                assert stage_of[parent] < stage_of[key], (parent, key)
    # What the grouping is for: fewer runs than Dagster's levels give, e.g. a model's generations and the
    # scores computed from them in one run.
    assert len(stages) < len(graph.toposorted_asset_keys_by_level)
    by_name = {key.to_user_string(): number for key, number in stage_of.items()}
    assert by_name["mmmt_if_generations"] == by_name["mmmt_if_turn_scores"] == by_name["creation_generations"]
    assert by_name["creation_leaderboard"] == by_name["analyst_snapshot"]


def test_a_run_splits_by_benchmark_and_its_joining_assets_wait_for_the_parts():
    graph = dg.Definitions(assets=[items, item_stats, urs_items, urs_references, urs_leaderboard,
                                   benchmark_redundancy, report, snapshot, leaderboard, scores,
                                   answers]).resolve_asset_graph()
    keys = [dg.AssetKey(name) for name in ("items", "urs_items", "item_stats", "urs_references", "urs_leaderboard",
                                           "benchmark_redundancy", "report")]
    runs, waiting = independent_runs(keys, graph, ["urs", "creation"])
    # With its parents (item_stats: no benchmark of its own, it reads items), else by benchmark; what reads two parts
    # waits, and so does what reads an asset that waits.
    assert _names(runs) == [["items", "item_stats"], ["urs_items", "urs_references", "urs_leaderboard"]]
    assert _names([waiting]) == [["benchmark_redundancy", "report"]]
    # Planned again once the parts ran: one run, the reader after its parent.
    assert independent_runs(waiting, graph, ["urs"]) == ([waiting], [])
    # Every asset once, in one part or waiting.
    placed = [key for run in runs for key in run] + waiting
    assert len(placed) == len(set(placed)) == len(keys) and set(placed) == set(keys)


def test_the_shipped_datasets_and_metrics_split_into_runs_that_go_side_by_side():
    from scripts.orchestrate import known_benchmarks

    graph = defs.resolve_asset_graph()
    stages = run_stages(graph)
    first, last = ([key for key in stages[index] if graph.get(key).partitions_def is None] for index in (0, -1))
    runs, waiting = independent_runs(first, graph, known_benchmarks())
    by_asset = {key.to_user_string(): number for number, run in enumerate(runs) for key in run}
    assert waiting == [] and len(runs) >= 4
    assert by_asset["creation_items"] == by_asset["creation_references"] != by_asset["urs_items"]
    runs, waiting = independent_runs(last, graph, known_benchmarks())
    assert "analyst_snapshot" in {key.to_user_string() for key in waiting} and len(runs) >= 3
