"""An asset's checks run in one step (checks/one_step.py): same keys and results as separate steps, one check's
crash does not lose the others' results, a blocking failure still stops the readers, and a selection of some of
the checks runs only those."""

import dagster as dg
import pytest

import definitions
from assets.chosen import chosen
from checks.one_step import asset_check, one_step_per_asset

parts = dg.StaticPartitionsDefinition(["good", "bad"])
ran: list[str] = []


@dg.asset(partitions_def=parts)
def table() -> None:
    pass


@dg.asset(partitions_def=parts, deps=[table])
def reader() -> None:
    pass


@asset_check(asset=table, partitions_def=parts, blocking=True)
def rows_valid(context) -> dg.AssetCheckResult:
    ran.append("rows_valid")
    return dg.AssetCheckResult(passed=context.partition_key == "good", metadata={"partition": context.partition_key})


@asset_check(asset=table, partitions_def=parts, description="raises on the bad partition")
def fragile(context) -> dg.AssetCheckResult:
    ran.append("fragile")
    if context.partition_key == "bad":
        raise ValueError("no such column")
    return dg.AssetCheckResult(passed=True, severity=dg.AssetCheckSeverity.WARN)


class Label(dg.ConfigurableResource):
    text: str


@asset_check(asset=table, partitions_def=parts)
def counted(context, label: Label) -> dg.AssetCheckResult:
    ran.append("counted")
    return dg.AssetCheckResult(passed=True, metadata={"label": label.text})


def _run(partition: str, selection=None) -> dg.ExecuteInProcessResult:
    ran.clear()
    merged = one_step_per_asset([rows_valid, fragile, counted])
    return dg.materialize([table, reader, *merged], partition_key=partition, selection=selection,
                          resources={"label": Label(text="from the resource")}, raise_on_error=False,
                          instance=dg.DagsterInstance.ephemeral())


def test_the_checks_of_an_asset_become_one_step_with_the_same_keys():
    [merged] = one_step_per_asset([rows_valid, fragile, counted])
    assert set(merged.check_keys) == {*rows_valid.check_keys, *fragile.check_keys, *counted.check_keys}
    assert merged.node_def.name == "table_checks"
    assert {spec.name: spec.blocking for spec in merged.check_specs} == {"rows_valid": True, "fragile": False,
                                                                         "counted": False}
    result = _run("good")
    assert result.success
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert {name: e.passed for name, e in evaluations.items()} == {"rows_valid": True, "fragile": True, "counted": True}
    assert evaluations["counted"].metadata["label"].value == "from the resource"
    assert evaluations["fragile"].severity == dg.AssetCheckSeverity.WARN
    check_steps = {e.step_key for e in result.all_events if e.event_type_value == "STEP_START"} - {"table", "reader"}
    assert check_steps == {"table_checks"}


def test_a_crashing_check_leaves_the_others_recorded_and_fails_the_step_by_name():
    result = _run("bad")
    assert not result.success
    assert {e.check_name: e.passed for e in result.get_asset_check_evaluations()} == {"rows_valid": False,
                                                                                      "counted": True}
    assert ran == ["rows_valid", "fragile", "counted"]
    [failure] = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert failure.step_key == "table_checks" and "could not run: fragile" in failure.event_specific_data.error.message
    # the blocking check failed, so the reader did not run
    assert reader.key not in {e.asset_key for e in result.get_asset_materialization_events()}


def test_a_selection_of_some_checks_runs_only_those():
    selection = dg.AssetSelection.assets(table).without_checks() | dg.AssetSelection.checks(*counted.check_keys)
    result = _run("good", selection)
    assert result.success and ran == ["counted"]
    assert [e.check_name for e in result.get_asset_check_evaluations()] == ["counted"]


def test_a_check_written_with_dagsters_own_decorator_keeps_its_step():
    @chosen(dg.asset_check, asset=table, partitions_def=parts)
    def plugin_check() -> dg.AssetCheckResult:
        return dg.AssetCheckResult(passed=True)

    merged = one_step_per_asset([plugin_check, rows_valid, fragile])
    assert plugin_check in merged and len(merged) == 2


@pytest.mark.parametrize("asset_name", ["creation_pairwise_judgments", "urs_generations"])
def test_the_code_locations_checks_of_an_asset_share_one_step(asset_name):
    steps = [c for c in definitions.defs.asset_checks if any(k.asset_key.path == [asset_name] for k in c.check_keys)]
    assert len(steps) == 1 and len(list(steps[0].check_keys)) >= 2
