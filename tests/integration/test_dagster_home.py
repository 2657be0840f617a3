"""The Dagster home stays small: the dagster.yaml that prepare_dagster_home writes has Dagster's tick retention,
steps log LLM progress in a few lines, and `compact_runs` deletes old runs (by default, past the newest N: the
main job's `keep_the_home_bounded`) but keeps each asset partition's latest materialization, so a following no-op
main job still runs nothing and calls no model."""

from pathlib import Path

import dagster as dg
from dagster._core.definitions.run_request import InstigatorType
from dagster._core.instance.ref import InstanceRef
from dagster._core.scheduler.instigation import TickStatus

from assets.common import log_first
from resources import prepare_dagster_home
from scripts.compact_runs import compact_runs, keep_the_home_bounded, main as compact_main
from scripts.orchestrate import materialize_everything
from tests.integration.conftest import copy_small_demo
from tests.support.pipeline import resources_for


def test_the_dagster_yaml_purges_old_ticks(tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    home = prepare_dagster_home(tmp_path)
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home))) as instance:
        for instigator in (InstigatorType.SENSOR, InstigatorType.SCHEDULE, InstigatorType.AUTO_MATERIALIZE):
            days = instance.get_tick_retention_settings(instigator)
            # Dagster's default keeps successful and failed ticks forever (-1): ours purges every kind.
            assert all(0 < days[status] <= 90 for status in TickStatus), (instigator, days)


def _latest_materialization_runs(instance) -> dict:
    latest = {}
    for key in instance.get_asset_keys():
        for record in instance.fetch_materializations(key, limit=10_000).records:  # newest first
            latest.setdefault((key, record.partition_key), record.run_id)
    return latest


def test_compaction_keeps_the_latest_state_and_a_no_op_stays_a_no_op(small_demo, tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    # A copy of the small demo's home: its instance holds the runs of the main job's cold build (`cold`).
    home = copy_small_demo(small_demo, tmp_path / "home")
    resources = resources_for(home)
    dagster_home = prepare_dagster_home(home)
    cold = small_demo["cold"]
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(dagster_home))) as instance:
        assert cold["failed_runs"] == 0 and cold["api_calls"] > 0
        assert set(cold["run_ids"]) == {r.dagster_run.run_id for r in instance.get_run_records()}

        # LLM progress: a few log lines per step, and the step's metadata has the counts its last line gives.
        generations_run = next(run_id for run_id in cold["run_ids"]
                               if dg.AssetKey("urs_generations") in instance.get_run_by_id(run_id).asset_selection)
        events = instance.all_logs(generations_run)
        progress = [e.user_message for e in events if e.dagster_event is None and e.step_key == "urs_generations"
                    and e.user_message.startswith("LLM requests:")]
        [materialization] = [e.asset_materialization for e in events if e.asset_materialization is not None
                             and e.asset_materialization.asset_key == dg.AssetKey("urs_generations")]
        metadata = materialization.metadata
        assert 1 <= len(progress) <= 3, progress
        done = int(metadata["api_calls"].value) + int(metadata["cache_hits"].value)
        assert progress[-1].startswith(f"LLM requests: {done}/{done} done") and metadata["api_calls"].value > 0

        forced = materialize_everything(instance, resources, force=True)
        assert forced["failed_runs"] == 0 and forced["api_calls"] == 0
        latest = _latest_materialization_runs(instance)
        assert set(latest.values()) <= set(forced["run_ids"])  # the forced runs superseded every cold one

        # Bounded by default (the main job after its runs): under the limit nothing is due; over it, the
        # superseded runs beyond the newest N go (here all but the 3 newest cold ones), and once done it is not
        # due again until a quarter of N more runs arrive.
        assert keep_the_home_bounded(instance, keep_runs=len(cold["run_ids"]) + len(forced["run_ids"])) is None
        keep = len(forced["run_ids"]) + 3
        assert keep_the_home_bounded(instance, keep_runs=keep)["deleted_runs"] == len(cold["run_ids"]) - 3
        assert instance.get_runs_count() == keep and keep_the_home_bounded(instance, keep_runs=keep) is None
        assert _latest_materialization_runs(instance) == latest

        # Nothing is old enough to go with a 30-day window.
        assert compact_runs(instance, keep_days=30)["deleted_runs"] == 0
        run_files = Path(instance.event_log_storage.path_for_shard(cold["run_ids"][0])).parent
        files_before = len(list(run_files.glob("*.db")))

        result = compact_runs(instance, keep_days=0)
        remaining = {r.dagster_run.run_id for r in instance.get_run_records()}
        assert result["deleted_runs"] == 3 and remaining == set(forced["run_ids"])
        assert not any(Path(instance.event_log_storage.path_for_shard(run_id)).exists() for run_id in cold["run_ids"])
        assert len(list(run_files.glob("*.db"))) == files_before - 3
        assert _latest_materialization_runs(instance) == latest

        noop = materialize_everything(instance, resources)
        assert (noop["runs"], noop["api_calls"], noop["failed_runs"]) == (0, 0, 0)
        assert noop["up_to_date"] == len(cold["materialized"])

    # The command line (what `dev.py compact-runs` runs) on the same home: nothing left to delete.
    monkeypatch.setenv("DAGSTER_HOME", str(dagster_home))
    assert compact_main(["--keep-days", "0"]) == 0


def test_a_long_list_of_bad_rows_logs_ten_lines_and_a_count():
    lines: list[str] = []
    log_first(lines.append, [f"skipped row {n}" for n in range(1, 1001)], "the dataset_problems table")
    assert lines[:10] == [f"skipped row {n}" for n in range(1, 11)]
    assert lines[10:] == ["... and 990 more, all in the dataset_problems table"]
