"""`dataset_problems.field`: the column or key at fault reaches the table from every kind of problem (a
LoadProblem, a loader's {location, reason, field} dict, one without a field), and a warehouse made before the
column existed gains it on opening."""

import resources.warehouse as warehouse_module
from assets.common import stored_problems
from benchwright.loading import LoadProblem, RowError, problem_of
from resources.warehouse import Warehouse


def test_the_field_of_each_problem_is_stored_and_null_where_the_record_is_wrong_as_a_whole(tmp_path):
    wh = Warehouse(database=str(tmp_path / "w.duckdb"))
    problems = [problem_of("a.csv:row 3", RowError("unknown user_intent 'x'", "user_intent")),
                LoadProblem("a.csv:row 4", "has 3 fields, header has 5"),
                {"location": "scores.csv:2", "reason": "score of m on MMMU is not a number: 'x'", "field": "MMMU"},
                {"location": "scores.csv:5", "reason": "duplicate of scores.csv:2"}]
    wh.replace_rows("dataset_problems", stored_problems(problems, "urs", "a.csv"), match={"benchmark": "urs"})
    with wh.session() as con:
        stored = con.execute("SELECT location, field FROM dataset_problems ORDER BY location").fetchall()
    assert stored == [("a.csv:row 3", "user_intent"), ("a.csv:row 4", None), ("scores.csv:2", "MMMU"),
                      ("scores.csv:5", None)]


def test_a_warehouse_of_the_previous_version_gains_the_column(tmp_path, monkeypatch):
    wh = Warehouse(database=str(tmp_path / "old.duckdb"))
    with wh.session() as con:
        con.execute("ALTER TABLE dataset_problems DROP COLUMN field")
        con.execute("INSERT INTO dataset_problems VALUES ('urs', 'a.csv', 'a.csv:row 2', 'empty question')")
    with wh.session() as con:  # the file was brought to the previous version's DDL, not today's
        con.execute("UPDATE warehouse_schema SET ddl_sha256 = 'the previous version'")
    monkeypatch.setattr(warehouse_module, "_SCHEMA_APPLIED", set())  # a new process of the new version
    with wh.session() as con:
        assert con.execute("SELECT location, field FROM dataset_problems").fetchall() == [("a.csv:row 2", None)]
