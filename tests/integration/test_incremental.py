"""The main job runs only what is missing or stale, by Dagster's own staleness (the one the UI shows):
nothing new runs nothing; a new candidate runs its own partitions and what reads all of them; a changed
judge entry re-runs that judge's judgments only; a new judge runs its own partitions and the readers that name
judges; a new file in a drop folder re-runs its benchmark's readers only, and of those only the ones whose input
rows changed (a game round runs no model's partition). And the rows left by the incremental runs are the rows a
forced run of everything leaves."""

import shutil
from collections import Counter

import dagster as dg
from dagster._core.definitions.data_version import DATA_VERSION_TAG
from dagster._core.definitions.partitions.context import partition_loading_context

from benchwright.paths import DAGSTER_FOLDER, ROOT
from definitions import defs
from scripts.compare_warehouses import compare
from scripts.orchestrate import materialize_everything, observe_sources, stale_status_resolver, sync_partitions
from scripts.stale_status import plain_stale_status_resolver
from sensors.failed_calls import latest_metadata, llm_asset_keys
from tests.integration.conftest import SMALL_JUDGES, SMALL_MODELS, copy_small_demo
from tests.support.drops import write_game_round
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, pick, resources_for, write_registry

GENERATIONS = {"creation_generations", "urs_generations", "mmmt_if_generations", "gap_generations"}
SCORED_PER_MODEL = {"mmmt_if_turn_scores"}  # programmatic scoring: no judge, partitioned by model
JUDGMENTS = {"creation_pairwise_judgments", "creation_vfs_judgments", "urs_judgments", "mmmt_if_autorater_judgments",
             "gap_score_judgments"}


# The integrity canaries' judgments (assets/canaries.py): one partition per judge, reading every model's judgments.
CANARIES = "canary_judgments"


def _ran(summary: dict) -> set[tuple[str, object]]:
    return {(key, None if partition is None else str(partition)) for key, partition in summary["materialized"]}


def _partitioned(summary: dict) -> list[tuple[str, dict]]:
    out = []
    for key, partition in summary["materialized"]:
        if isinstance(partition, dg.MultiPartitionKey):
            out.append((key, partition.keys_by_dimension))
        elif key == CANARIES:  # partitioned by judge
            out.append((key, {"judge": partition}))
        elif partition is not None:
            out.append((key, {"model": partition}))
    return out


def _assert_only_judge_ran(summary: dict, judge: str, models: set[str]) -> None:
    """Of the partitioned assets, only this judge's judgments of these models ran, and its own canaries."""
    partitioned = _partitioned(summary)
    assert [keys for key, keys in partitioned if key == CANARIES] == [{"judge": judge}]
    partitioned = [(key, keys) for key, keys in partitioned if key != CANARIES]
    assert {key for key, _ in partitioned} == JUDGMENTS
    assert {keys["judge"] for _key, keys in partitioned} == {judge}
    assert {keys["model"] for _key, keys in partitioned} == models


def _statuses_as_dagsters(instance) -> Counter:
    """Every asset partition's status, stale causes and data version from the main job's batched resolver, each
    asserted equal to Dagster's own resolver's, and each LLM partition's latest metadata to the event log's;
    returns how many partitions have each status (so a caller can tell the comparison saw stale ones)."""
    graph = defs.resolve_asset_graph()
    batched, plain = stale_status_resolver(instance, graph), plain_stale_status_resolver(instance, graph)
    batched.prefetch(graph.get_all_asset_keys())
    calling = set(llm_asset_keys())
    statuses = Counter()
    for key in sorted(graph.get_all_asset_keys()):
        node = graph.get(key)
        with partition_loading_context(dynamic_partitions_store=instance):
            partitions = node.partitions_def.get_partition_keys() if node.is_partitioned else [None]
        for partition in partitions:
            status = batched.get_status(key, partition)
            assert status == plain.get_status(key, partition), (key, partition)
            assert batched.get_stale_causes(key, partition) == plain.get_stale_causes(key, partition), (key, partition)
            assert batched.get_current_data_version(key, partition) == plain.get_current_data_version(key, partition)
            if key in calling:
                assert batched.latest_materialization_metadata(key, partition) == \
                    latest_metadata(instance, key, partition), (key, partition)
            statuses[status.value] += 1
    return statuses


def test_only_what_is_new_runs(small_demo, tmp_path):
    # A copy of the small demo's home (one candidate, one judge), built by the main job on the instance it carries;
    # a candidate and a judge are added below, then that judge's entry changed: each step is about which partitions
    # run, and two of each show it as well as three did, with fewer runs.
    home = copy_small_demo(small_demo, tmp_path / "home")
    models, judges = SMALL_MODELS, SMALL_JUDGES
    resources = resources_for(home)
    with dg.instance_for_test(temp_dir=str(home / DAGSTER_FOLDER)) as instance:
        cold = small_demo["cold"]
        assert cold["failed_runs"] == 0 and cold["api_calls"] > 0

        # Nothing new: no run, no call, and the UI's resolver agrees that every partition is fresh.
        noop = materialize_everything(instance, resources)
        assert (noop["runs"], noop["api_calls"], noop["materialized"]) == (0, 0, [])
        assert noop["up_to_date"] == len(cold["materialized"])
        resolver = stale_status_resolver(instance, defs.resolve_asset_graph())
        assert resolver.get_status(dg.AssetKey("creation_leaderboard")).value == "FRESH"
        assert resolver.get_status(dg.AssetKey("creation_generations"), "sim-strong").value == "FRESH"

        # A new candidate: its own generations and judgments, and the unpartitioned readers of all of them.
        models = {**models, **pick(SHIPPED_MODELS, "sim-average")}
        write_registry(home, models, judges)
        sync_partitions(instance, resources["registry"], lambda _msg: None)  # what the main job does first
        observe_sources(instance, resources, lambda _msg: None)
        assert _statuses_as_dagsters(instance)["MISSING"] > 0
        added = materialize_everything(instance, resources)
        assert added["failed_runs"] == 0 and added["api_calls"] > 0
        partitioned = _partitioned(added)
        # the new model's partitions, and the canaries of every judge, compared again with the candidates (their
        # own requests are answered from the cache)
        canaries = [keys["judge"] for key, keys in partitioned if key == CANARIES]
        partitioned = [(key, keys) for key, keys in partitioned if key != CANARIES]
        assert sorted(canaries) == sorted(judges)
        assert partitioned and all(keys["model"] == "sim-average" for _key, keys in partitioned), partitioned
        assert {key for key, _ in partitioned} == GENERATIONS | SCORED_PER_MODEL | JUDGMENTS
        ran = {key for key, _ in _ran(added)}
        assert {"creation_leaderboard", "urs_leaderboard", "mmmt_if_turn_scores", "gap_scores",
                "analyst_snapshot"} <= ran
        assert not ran & {"creation_items", "creation_references", "creation_image_descriptions", "urs_items",
                          "urs_references", "mmmt_if_chats", "gap_game_logs", "gap_reliability"}

        # A new judge: its judgments of every model and its own canaries; the other judge's canaries and the metrics
        # that name no judge (MMMT-IF's PIF) read model_labels, which a judge leaves as it was, so they stay.
        judges = {**judges, **pick(SHIPPED_JUDGES, "sim-biased-judge")}
        write_registry(home, models, judges)
        judged = materialize_everything(instance, resources)
        assert judged["failed_runs"] == 0 and judged["api_calls"] > 0
        _assert_only_judge_ran(judged, "sim-biased-judge", {"sim-strong", "sim-average"})
        ran = {key for key, _ in _ran(judged)}
        assert {"creation_leaderboard", "urs_leaderboard", "judge_quality", "analyst_snapshot"} <= ran
        assert not ran & {"mmmt_if_pif_metrics", "mmmt_if_model_comparisons", "mmmt_if_turn_scores"}

        # A changed judge entry: that judge's judgment partitions, for every model, and no generation.
        changed = {**judges["sim-biased-judge"], "params": {**judges["sim-biased-judge"]["params"],
                                                             "malformed_rate": 0.03}}
        write_registry(home, models, {**judges, "sim-biased-judge": changed})
        observe_sources(instance, resources, lambda _msg: None)
        assert _statuses_as_dagsters(instance)["STALE"] > 0
        rejudged = materialize_everything(instance, resources)
        _assert_only_judge_ran(rejudged, "sim-biased-judge", {"sim-strong", "sim-average"})
        assert rejudged["api_calls"] > 0  # new params, new requests

        # A new game log in the drop folder: GAP's readers of the logs, nothing of the other benchmarks.
        drop = home / "drops" / "gap_logs"
        drop.mkdir(parents=True, exist_ok=True)
        sample = sorted((ROOT / "sample_data" / "gap" / "logs").glob("*"))[0]
        shutil.copy(sample, drop / f"redelivered-{sample.name}")
        logs = materialize_everything(instance, resources)
        # Every mark of a re-delivered log is known already: the ingest records the file and the duplicates, the
        # readers of the marks run and find their rows unchanged, so the VQA set and every model's partition stay.
        assert _ran(logs) == {(key, None) for key in ("gap_game_logs", "gap_reliability", "gap_interaction_model",
                                                      "gap_engagement", "analyst_snapshot")}
        assert logs["api_calls"] == 0

        # One game round (a new player's marks on one picture): the assets whose rows change, and no model's
        # answers or judgments, since the VQA items are the same (gap_vqa_dataset reports its rows' version).
        vqa_before = resources["warehouse"].query("SELECT * FROM gap_vqa_items ORDER BY item_id")
        write_game_round(resources["warehouse"], drop)
        game = materialize_everything(instance, resources)
        assert resources["warehouse"].query("SELECT * FROM gap_vqa_items ORDER BY item_id").equals(vqa_before)
        assert (game["failed_runs"], game["api_calls"]) == (0, 0)
        assert _ran(game) == {(key, None) for key in ("gap_game_logs", "gap_reliability", "gap_interaction_model",
                                                      "gap_engagement", "gap_vqa_dataset", "analyst_snapshot")}

        # The incremental runs left what a forced run of everything leaves, row for row.
        incremental = tmp_path / "incremental.duckdb"
        shutil.copy(resources["warehouse"].database, incremental)
        forced = materialize_everything(instance, resources, force=True)
        assert forced["failed_runs"] == 0 and forced["api_calls"] == 0
        assert _ran(forced) == _ran(cold) | _ran(added) | _ran(judged)
        differing = [row for row in compare(str(incremental), resources["warehouse"].database)
                     if row[1] < 0 or row[3] or row[4]]
        assert differing == []

        # A partitioned parent with newer events than its children read: the batched resolver's shortcut does
        # not apply, and Dagster's comparison of versions answers: the same version keeps the children fresh,
        # a new one makes them stale.
        generations = dg.AssetKey("creation_generations")
        version = stale_status_resolver(instance, defs.resolve_asset_graph()).get_current_data_version(
            generations, "sim-average").value
        for partition, new_version in (("sim-average", version), ("sim-strong", "another version")):
            instance.report_runless_asset_event(dg.AssetMaterialization(
                asset_key=generations, partition=partition, tags={DATA_VERSION_TAG: new_version}))
        statuses = _statuses_as_dagsters(instance)
        assert statuses["STALE"] > 0 and statuses["MISSING"] == 0
