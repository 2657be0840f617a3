"""Registering a model or a judge re-evaluates only what is new (registry sensor + eager automation)."""

import assets.creation
import dagster as dg
from benchwright.paths import DAGSTER_FOLDER
from definitions import defs
from scripts.orchestrate import observe_sources
from sensors.registry import GENERATION_INPUTS
from tests.integration.conftest import SMALL_JUDGES, SMALL_MODELS, copy_small_demo
from tests.support.pipeline import (SHIPPED_JUDGES, SHIPPED_MODELS, materialize, pick,
                                    resources_for, sensor_tick, write_registry)

ITEMS = 15          # sample items
VFS_ITEMS = 14      # sample items with visual-factuality criteria


def requested(result, instance) -> dict[str, set[str]]:
    out = {}
    # A subset of an asset partitioned by a dynamic dimension alone (MMMT-IF turn scores, per model) reads its
    # partitions from the instance.
    with dg.partition_loading_context(dynamic_partitions_store=instance):
        for r in result.results:
            if r.true_subset.size:
                keys = r.true_subset.expensively_compute_partition_keys() if r.true_subset.is_partitioned else {"*"}
                out[r.key.to_user_string()] = set(map(str, keys))
    return out


CREATION_ASSETS = {key.to_user_string() for a in dg.load_assets_from_modules([assets.creation])
                   if isinstance(a, dg.AssetsDefinition) for key in a.keys}


def creation_only(keys_by_asset: dict) -> dict:
    return {asset: keys for asset, keys in keys_by_asset.items() if asset in CREATION_ASSETS}


def only_partitions_of(keys_by_asset: dict, slug: str, besides: tuple[str, ...] = ()) -> bool:
    """Every partitioned request names `slug` (other benchmarks' assets may be requested too), except the
    assets in `besides`."""
    return all(slug in key.split("|") for asset, keys in keys_by_asset.items() if asset not in besides
               for key in keys if key != "*")


def run_until_quiet(tick, instance, resources, max_ticks: int = 6):
    """Tick automation and execute what it requests until it requests nothing more.

    Returns the last tick, the union of everything requested, and Creation's LLM calls.
    """
    seen: dict[str, set[str]] = {}
    calls = 0
    for _ in range(max_ticks):
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=tick.cursor)
        wanted = requested(tick, instance)
        if not wanted:
            return tick, seen, calls
        for asset, keys in wanted.items():
            seen.setdefault(asset, set()).update(keys)
        calls += run_requested(wanted, instance, resources)
    raise AssertionError(f"automation still requesting after {max_ticks} ticks: {wanted}")


canary_calls: list[int] = []


def run_requested(keys_by_asset, instance, resources) -> int:
    """Execute what automation requested, one run per partition; returns Creation's LLM calls (the canaries' runs'
    calls are added to `canary_calls`, one number per run)."""
    calls = 0
    # Partitioned runs first: unpartitioned metrics read what they write.
    partitions = sorted({pk for keys in keys_by_asset.values() for pk in keys}, key=lambda pk: (pk == "*", pk))
    for pk in partitions:
        assets = sorted(a for a, keys in keys_by_asset.items() if pk in keys)
        partition_key = None if pk == "*" else (dg.MultiPartitionKey(dict(zip(("judge", "model"), pk.split("|"))))
                                                 if "|" in pk else pk)
        result = materialize(assets, instance, resources, partition_key=partition_key)
        assert result.success, assets
        calls += sum(int(e.materialization.metadata["api_calls"].value) for e in result.get_asset_materialization_events()
                     if e.asset_key.to_user_string() in CREATION_ASSETS and "api_calls" in e.materialization.metadata)
        canary_calls.extend(int(e.materialization.metadata["api_calls"].value)
                            for e in result.get_asset_materialization_events()
                            if e.asset_key.to_user_string() == "canary_judgments"
                            and "api_calls" in e.materialization.metadata)
    return calls


# Each benchmark's headline table, with the judge column where the benchmark has judges.
LEADERBOARDS = {
    "creation_leaderboard WHERE scope = 'overall'": "judge",
    "urs_leaderboard WHERE intent = 'all' AND language = 'all'": "judge",
    "mmmt_if_summary WHERE variant = 'standard'": None,   # PIF is checked by code, not judged
    "mmmt_if_ratings WHERE variant = 'standard'": "judge",
    "gap_scores": "judge",
}


def judges_of(table: str, judges: dict) -> set:
    return set(judges) if LEADERBOARDS[table] else {None}


def leaderboard_pairs(warehouse) -> dict:
    out = {}
    for table, judge in LEADERBOARDS.items():
        rows = warehouse.query(f"SELECT DISTINCT {judge or 'NULL'} AS judge, model FROM {table}")
        out[table] = {(None if judge is None else r.judge, r.model) for r in rows.itertuples(index=False)}
    return out


def test_new_model_then_new_judge_runs_only_what_is_new(small_demo, tmp_path):
    # A copy of the small demo's home, materialized by the main job on the instance it carries (one candidate,
    # one judge).
    models, judges = SMALL_MODELS, SMALL_JUDGES
    home = copy_small_demo(small_demo, tmp_path / "home")
    resources = resources_for(home)
    with dg.instance_for_test(temp_dir=str(home / DAGSTER_FOLDER)) as instance:
        cold = small_demo["cold"]
        assert cold["failed_runs"] == 0 and {r.dagster_run.run_id for r in instance.get_run_records()} == set(
            cold["run_ids"])
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance)
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=tick.cursor)
        assert requested(tick, instance) == {}, "nothing is new yet"
        assert isinstance(sensor_tick(instance, resources), dg.SkipReason)

        # --- a new candidate model --------------------------------------------------------------
        write_registry(home, {**models, "sim-weak": SHIPPED_MODELS["sim-weak"]}, judges)
        result = sensor_tick(instance, resources)
        assert [r.partition_key for r in result.run_requests] == ["sim-weak"]
        # The new entry's version is recorded with the tick, before its generation run reads it; the other entries'
        # are as the main job recorded them.
        observed = {(e.asset_key.to_user_string(), e.partition) for e in result.asset_events}
        assert observed == {("model_entries", "sim-weak"), ("registry_labels", None), ("model_labels", None)}
        assert dg.AssetKey("creation_generations") in result.run_requests[0].asset_selection
        assert set(instance.get_dynamic_partitions("models")) == {"sim-strong", "sim-weak"}
        generation = materialize([k.to_user_string() for k in result.run_requests[0].asset_selection],
                                 instance, resources, partition_key="sim-weak")
        assert generation.success
        assert sum(int(e.materialization.metadata["api_calls"].value) for e in generation.get_asset_materialization_events()
                   if e.asset_key.to_user_string() == "creation_generations") == ITEMS

        canary_calls.clear()
        tick, seen, calls = run_until_quiet(tick, instance, resources)
        assert creation_only(seen) == {"creation_pairwise_judgments": {"sim-fair-judge|sim-weak"},
                                       "creation_vfs_judgments": {"sim-fair-judge|sim-weak"},
                                       "creation_leaderboard": {"*"}, "judge_quality": {"*"}}
        assert "analyst_snapshot" in seen
        # The canaries' partitions (one per judge) compare with the weakest candidate, so a new candidate re-runs
        # them, from the cache: their answers and the judges' verdicts on them are not new.
        assert only_partitions_of(seen, "sim-weak", besides=("canary_judgments",))
        assert seen.get("canary_judgments", set()) <= set(judges) and sum(canary_calls) == 0
        assert calls == 2 * ITEMS + VFS_ITEMS
        board = resources["warehouse"].query("SELECT model FROM creation_leaderboard WHERE scope = 'overall'")
        assert set(board["model"]) == {"sim-strong", "sim-weak"}
        # ... and so did every other benchmark's results, GAP's scores included, with no other trigger.
        assert leaderboard_pairs(resources["warehouse"]) == {
            table: {(j, m) for j in judges_of(table, judges) for m in ("sim-strong", "sim-weak")}
            for table in LEADERBOARDS}

        # --- a new judge: every model is judged by it, nothing else is recomputed ---------------
        write_registry(home, {**models, "sim-weak": SHIPPED_MODELS["sim-weak"]},
                       {**judges, "sim-biased-judge": SHIPPED_JUDGES["sim-biased-judge"]})
        result = sensor_tick(instance, resources)
        assert result.run_requests == []
        tick, seen, calls = run_until_quiet(tick, instance, resources)
        new_partitions = {"sim-biased-judge|sim-strong", "sim-biased-judge|sim-weak"}
        assert creation_only(seen) == {"creation_pairwise_judgments": new_partitions,
                                       "creation_vfs_judgments": new_partitions,
                                       "creation_leaderboard": {"*"}, "judge_quality": {"*"}}
        assert only_partitions_of(seen, "sim-biased-judge")
        assert calls == 2 * (2 * ITEMS + VFS_ITEMS)
        assert {"gap_score_judgments", "gap_scores"} <= set(seen)
        all_judges = {**judges, "sim-biased-judge": SHIPPED_JUDGES["sim-biased-judge"]}
        assert leaderboard_pairs(resources["warehouse"]) == {
            table: {(j, m) for j in judges_of(table, all_judges) for m in ("sim-strong", "sim-weak")}
            for table in LEADERBOARDS}


def test_fresh_instance_waits_for_datasets_and_malformed_entries_spare_the_others(tmp_path):
    models = {**pick(SHIPPED_MODELS, "sim-baseline", "sim-describer", "sim-strong"), "Bad Slug!": {"model": "sim/x"}}
    write_registry(tmp_path, models, {"sim-fair-judge": SHIPPED_JUDGES["sim-fair-judge"], "j2": {"role": "judge"}})
    resources = resources_for(tmp_path)
    with dg.instance_for_test() as instance:
        result = sensor_tick(instance, resources)
        # The tick recorded the versions of the inputs (registry entries, files) the main job would: it finds none new.
        assert observe_sources(instance, resources, print) == 0
        new_versions = result.skip_reason.skip_message.split(" | new versions of ")[1].split(", ")
        assert {"creation_dataset_files", "model_entries", "judge_entries"} <= set(new_versions)
        assert instance.get_dynamic_partitions("models") == ["sim-strong"]
        assert instance.get_dynamic_partitions("judges") == ["sim-fair-judge"]
        # Nothing to generate from yet: partitions are added, generation runs wait; the tick says so,
        # and names the refused entries in its own text.
        assert result.run_requests == []
        text = result.skip_reason.skip_message
        assert "added models ['sim-strong'] and judges ['sim-fair-judge']" in text and "waiting for" in text
        assert "2 registry entries refused" in text and "'Bad Slug!'" in text and "'j2'" in text
        inputs = [k.to_user_string() for k in GENERATION_INPUTS]
        assert "creation_items" in inputs
        assert materialize(inputs, instance, resources).success
        result = sensor_tick(instance, resources)
        assert [r.partition_key for r in result.run_requests] == ["sim-strong"]
        assert materialize([k.to_user_string() for k in result.run_requests[0].asset_selection], instance, resources,
                           partition_key="sim-strong").success
        skipped = sensor_tick(instance, resources)
        assert isinstance(skipped, dg.SkipReason)
        # The refusals are in the tick's own text, where the UI shows it.
        assert "2 registry entries refused" in skipped.skip_message and "Bad Slug!" in skipped.skip_message
        problems = [str(p) for p in resources["registry"].problems()]
        assert any("models.yaml" in p and "Bad Slug!" in p for p in problems)
        assert any("judges.yaml" in p and "'j2'" in p for p in problems)
