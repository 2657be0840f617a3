"""A refused registry entry is a failing ERROR check on registry_labels, whichever way it is evaluated: by the main
job (a runless evaluation), by a run of the check alone (what "Execute" in the UI launches) and by the registry
sensor's tick (the daemon). Nothing is materialized: the check reads only the registry files."""

import dagster as dg
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus

from benchwright.paths import ROOT
from checks.registry import REGISTRY_CHECK, registry_check_evaluation, report_registry_check
from resources.registry import Registry
from scripts.orchestrate import asset_job, resources_config
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, pick, resources_for, sensor_tick, write_registry

BAD_ENTRY = """
sim-dated:
  model: sim/strong-writer
  role: candidate
  params:
    skill: 0.5
    released: 2024-05-01
"""


def latest(instance):
    """The check's latest execution, as the UI's asset view reads it."""
    return instance.event_log_storage.get_latest_asset_check_execution_by_key([REGISTRY_CHECK])[REGISTRY_CHECK]


def refusals(evaluation) -> list[dict]:
    table = evaluation.metadata["refused_entries"]
    return [dict(record.data) for record in table.records]


def test_a_refused_entry_fails_the_registry_check_in_the_main_job_the_ui_and_the_sensor(tmp_path):
    write_registry(tmp_path, pick(SHIPPED_MODELS, "sim-strong"), pick(SHIPPED_JUDGES, "sim-fair-judge"))
    models = tmp_path / "models.yaml"
    models.write_text(models.read_text() + BAD_ENTRY)
    released_line = models.read_text().splitlines().index("    released: 2024-05-01") + 1
    expected = [{"file": str(models), "entry": "sim-dated", "line": released_line, "field": "params.released"}]
    resources = resources_for(tmp_path)
    with dg.instance_for_test() as instance:
        # The main job: evaluated without a run, recorded, and returned for its summary.
        evaluation = report_registry_check(instance, resources["registry"])
        assert not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR
        assert [{k: row[k] for k in expected[0]} for row in refusals(evaluation)] == expected
        assert "params.released is a YAML date" in refusals(evaluation)[0]["reason"]
        assert evaluation.metadata["refusals"].value == 1
        assert latest(instance).status == AssetCheckExecutionRecordStatus.FAILED

        # "Execute" on the check in the UI: a run of the asset job with the check alone selected.
        job = asset_job().get_subset(asset_selection=set(), asset_check_selection={REGISTRY_CHECK})
        with dg.execute_job(job, instance, run_config={"resources": resources_config(resources)}) as result:
            assert result.success
            [from_run] = result.get_asset_check_evaluations()
            run_id = result.run_id
        assert (from_run.asset_key, from_run.check_name, from_run.passed) == (REGISTRY_CHECK.asset_key,
                                                                              REGISTRY_CHECK.name, False)
        assert from_run.severity == dg.AssetCheckSeverity.ERROR and refusals(from_run) == refusals(evaluation)
        record = latest(instance)
        assert record.run_id == run_id and record.status == AssetCheckExecutionRecordStatus.FAILED
        assert "sim-dated" in record.evaluation.description and "field params.released" in record.evaluation.description

        # The daemon: a tick records no check result while the result is the one recorded (the sources' first
        # versions, yes) ...
        tick = sensor_tick(instance, resources)
        assert not check_results(tick) and tick.asset_events
        # ... and the fixed entry's passing result at once.
        models.write_text(models.read_text().replace("2024-05-01", "'2024-05-01'"))
        tick = sensor_tick(instance, resources)
        [passing] = check_results(tick)
        assert passing.passed and passing.metadata["refusals"].value == 0 and refusals(passing) == []
        assert latest(instance).status == AssetCheckExecutionRecordStatus.SUCCEEDED
        # The main job again: the same passing result, so no new event.
        before = latest(instance).id
        assert report_registry_check(instance, resources["registry"]).passed and latest(instance).id == before


def check_results(tick: dg.SensorResult) -> list[dg.AssetCheckEvaluation]:
    """The check results among a registry sensor tick's asset events (the others: the sources' new versions)."""
    return [event for event in tick.asset_events if isinstance(event, dg.AssetCheckEvaluation)]


def test_the_shipped_registry_passes_the_check():
    shipped = Registry(models_path=str(ROOT / "registry" / "models.yaml"),
                       judges_path=str(ROOT / "registry" / "judges.yaml"))
    evaluation = registry_check_evaluation(shipped)
    assert evaluation.passed and evaluation.metadata["refusals"].value == 0 and refusals(evaluation) == []
