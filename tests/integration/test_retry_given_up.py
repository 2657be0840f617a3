"""`--retry-given-up` reaches the partitions: a partition whose last run left only given-up calls is up to date for
the main job and its plan, and runs again (and is planned) when the LLM resource asks given-up requests again.
(That the runner then really sends a given-up request is tests/integration/test_llm_give_up.py.)"""

import dagster as dg
from dagster._core.instance.ref import InstanceRef

from resources import prepare_dagster_home
from resources.llm import llm_with
from scripts.orchestrate import materialize_everything
from scripts.plan import plan
from tests.integration.conftest import copy_small_demo
from tests.support.pipeline import resources_for

ASSET, PARTITION = dg.AssetKey("urs_generations"), "sim-strong"


def _leave_given_up_calls(instance: dg.DagsterInstance) -> None:
    """The partition's latest materialization again, with the same tags (data and input versions: Dagster finds it
    as fresh as before), but its run left two failed calls, both given up."""
    record = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=ASSET, asset_partitions=[PARTITION]), limit=1).records[0]
    before = record.asset_materialization
    metadata = {**{name: value.value for name, value in before.metadata.items()}, "errors": 2, "given_up": 2}
    instance.report_runless_asset_event(dg.AssetMaterialization(
        asset_key=ASSET, partition=PARTITION, metadata=metadata, tags=before.tags))


def _ran(instance: dg.DagsterInstance, run_ids: list[str]) -> set[tuple[str, str | None]]:
    """(asset, partition) each of the runs materialized."""
    return {(entry.dagster_event.asset_key.to_user_string(), entry.dagster_event.partition)
            for run_id in run_ids for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)}


def test_given_up_calls_wait_until_retry_given_up_asks_them(small_demo, tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    home = copy_small_demo(small_demo, tmp_path / "home")
    monkeypatch.setenv("BENCHWRIGHT_MODELS", str(home / "models.yaml"))  # the plan reads the registry's settings
    monkeypatch.setenv("BENCHWRIGHT_JUDGES", str(home / "judges.yaml"))
    resources = resources_for(home)
    dagster_home = prepare_dagster_home(home)
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(dagster_home))) as instance:
        _leave_given_up_calls(instance)

    # Without the option the plan and the main job leave the partition alone: its failures are given up.
    assert plan(home, dagster_home, log=lambda _line: None)["runs"] == 0
    assert plan(home, dagster_home, log=lambda _line: None, retry_given_up=True)["runs"] >= 1
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(dagster_home))) as instance:
        idle = materialize_everything(instance, resources)
        assert idle["runs"] == 0 and idle["asked_again"] == 0

        resources["llm"] = llm_with(resources["llm"], retry_given_up=True)
        asked = materialize_everything(instance, resources)
        assert asked["failed_runs"] == 0 and asked["asked_again"] == 1
        assert (ASSET.to_user_string(), PARTITION) in _ran(instance, asked["run_ids"])
        assert asked["api_calls"] == 0  # every other answer is in the cache; the partition's rows are rebuilt

        # Its new materialization has no failed calls: the next job, option or not, has nothing to do.
        assert materialize_everything(instance, resources)["runs"] == 0
