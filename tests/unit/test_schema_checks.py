"""The schema checks the factory makes (checks/factories.py): one partition's rows, only the columns the
suites name, and the same failures as a validation of the whole rows."""

from types import SimpleNamespace

import dagster as dg
import pandas as pd
import pytest

from assets.creation import creation_pairwise_judgments
from benchwright.creation.suites import SUITES
from benchwright.quality import columns_named, validate_frame
from checks.factories import SchemaSpec, _read_partition, schema_check
from checks.schema import creation_schema_checks
from resources.warehouse import Warehouse


def judgments(model: str, judge: str, bad_verdict: bool = False) -> pd.DataFrame:
    rows = pd.DataFrame({
        "model": model, "judge": judge, "item_id": ["i1", "i1", "i2", "i2"], "judge_order": [1, 2, 1, 2],
        "candidate_position": ["B", "A", "B", "A"], "raw_text": "a long judge output [[A>B]]",
        "verdict": ["A>B", "B>A", "A=B", "A>>B"], "parse_ok": True, "outcome": ["W", "W", "T", "MB"],
        "error": None, "simulated": True, "source": "test",
    })
    if bad_verdict:
        rows.loc[2, "verdict"] = "A>>>B"
    return rows


@pytest.fixture
def warehouse(tmp_path) -> Warehouse:
    warehouse = Warehouse(database=str(tmp_path / "warehouse.duckdb"))
    warehouse.write_tables([("creation_pairwise_judgments",
                             pd.concat([judgments("m1", "j1"), judgments("m2", "j1", bad_verdict=True)]), None)])
    return warehouse


def partition(model: str, judge: str) -> SimpleNamespace:
    """What the check reads from its context: the partition key."""
    return SimpleNamespace(partition_key=dg.MultiPartitionKey({"model": model, "judge": judge}))


def run(check: dg.AssetChecksDefinition, warehouse: Warehouse, model: str, judge: str) -> dg.AssetCheckResult:
    return check.node_def.compute_fn.decorated_fn(context=partition(model, judge), warehouse=warehouse)


def pairwise_check() -> dg.AssetChecksDefinition:
    [check] = [c for c in creation_schema_checks
               if next(iter(c.check_keys)).asset_key == dg.AssetKey("creation_pairwise_judgments")]
    return check


def test_each_partition_is_judged_on_its_own_rows(warehouse):
    check = pairwise_check()
    for _ in range(2):  # again in the same process, on the suites built the first time
        good = run(check, warehouse, "m1", "j1")
        assert good.passed and good.metadata["rows"].value == 4 and good.metadata["failed_calls"].value == 0
        bad = run(check, warehouse, "m2", "j1")
        assert not bad.passed and bad.metadata["rows"].value == 4
        [failure] = bad.metadata["failed_expectations"].value
        assert failure["expectation"] == "expect_column_values_to_be_in_set" and failure["columns"] == ["verdict"]
        assert failure["unexpected_count"] == 1 and failure["unexpected_values"] == ["A>>>B"]


def test_the_check_reads_only_the_columns_its_suites_name(warehouse):
    spec = SchemaSpec(creation_pairwise_judgments, "creation_pairwise_judgments", SUITES["creation_pairwise_judgments"],
                      scope="model_judge", answered_suite=SUITES["creation_pairwise_judgments_answered"])
    read = _read_partition(warehouse, spec, partition("m2", "j1"))
    assert set(read.columns) == set(columns_named(spec.suite)) | {"error"}
    assert "source" not in read.columns and len(read) == 4
    # Same report as the old way: every column of the partition's rows.
    everything = warehouse.query("SELECT * FROM creation_pairwise_judgments WHERE model = 'm2' AND judge = 'j1'")
    assert validate_frame(read, spec.suite) == validate_frame(everything, spec.suite)


def test_a_column_the_table_lacks_is_reported_missing(warehouse):
    suite = [{"type": "columns_exist", "columns": ["model", "no_such_column"]},
             {"type": "column_not_null", "column": "other_missing_column"}]
    check = schema_check(SchemaSpec(creation_pairwise_judgments, "creation_pairwise_judgments", suite,
                                    scope="model_judge", name="test_missing"))
    result = run(check, warehouse, "m1", "j1")
    assert not result.passed
    failures = {f["columns"][0]: f for f in result.metadata["failed_expectations"].value}
    assert sorted(failures) == ["no_such_column", "other_missing_column"]
    assert failures["no_such_column"]["observed"] == "column missing"
    assert "other_missing_column" in failures["other_missing_column"]["observed"]
