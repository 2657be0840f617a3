"""The one rule for the simulation flags (assets.common.add_labels, and the ledger's per-row flags): a real
model judged by a simulated judge is model_simulated = false, judge_simulated = true, simulated = true."""

import duckdb
import pandas as pd

import resources.warehouse as warehouse_module
from assets.common import SIMULATION_SIDES, add_labels, flagged_rows
from assets.ledger import side_flags
from benchwright.paths import sql_files
from resources.registry import Registry
from resources.warehouse import Warehouse
from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, pick, write_registry


def registry(tmp_path) -> Registry:
    models = {**pick(SHIPPED_MODELS, "sim-baseline"),
              "http-writer": {"model": "openai/http-writer", "api_base": "http://127.0.0.1:9/v1", "role": "candidate",
                              "display_name": "Writer over HTTP"}}
    write_registry(tmp_path, models, pick(SHIPPED_JUDGES, "sim-fair-judge"))
    return Registry(models_path=str(tmp_path / "models.yaml"), judges_path=str(tmp_path / "judges.yaml"))


def test_each_side_is_flagged_and_simulated_is_either(tmp_path):
    rows = pd.DataFrame({"model": ["http-writer", "sim-baseline", "gone-model"],
                         "judge": ["sim-fair-judge", "sim-fair-judge", "gone-judge"]})
    labelled = add_labels(rows, registry(tmp_path), {"model": "model_display", "judge": "judge_display"})
    assert labelled["model_simulated"].tolist() == [False, True, False]  # a slug left the registry: real
    assert labelled["judge_simulated"].tolist() == [True, True, False]
    assert labelled["simulated"].tolist() == [True, True, False]
    assert labelled["model_display"].tolist()[0] == "Writer over HTTP"


def test_a_table_without_a_judge_gets_no_judge_flag(tmp_path):
    labelled = add_labels(pd.DataFrame({"model": ["http-writer"]}), registry(tmp_path), {"model": "model_display"})
    assert "judge_simulated" not in labelled  # the warehouse column stays NULL
    assert labelled[["model_simulated", "simulated"]].values.tolist() == [[False, False]]


def test_ledger_rows_are_flagged_by_the_same_rule_and_null_where_a_side_is_missing(tmp_path):
    labels = registry(tmp_path).labels()
    assert side_flags(pd.Series(["http-writer", "sim-baseline", ""]), labels).tolist() == [False, True, pd.NA]
    assert side_flags(pd.Series(["", "sim-fair-judge"]), labels).tolist() == [pd.NA, True]


def test_the_cost_ledger_view_reads_the_row_flags_and_old_rows_keep_their_meaning():
    con = duckdb.connect()
    con.execute(next(p for p in sql_files("ddl") if p.name == "00_core.sql").read_text(encoding="utf-8"))
    con.execute(next(p for p in sql_files("views") if p.name == "cost_ledger.sql").read_text(encoding="utf-8"))
    row = "(?, now(), 'r', 'creation', ?, '', ?, ?, 'sim/x', 'k', FALSE, FALSE, 1, 1, 0, 1, ?, ?, ?, 1)"
    con.executemany(f"INSERT INTO llm_ledger BY POSITION VALUES {row}", [
        # a real model's answer, then a simulated judge's verdict on it
        ["1", "creation_generations", "http-writer", "", False, False, None],
        ["2", "creation_pairwise_judgments", "http-writer", "sim-fair-judge", True, False, True],
        # copied before the flags existed: the call itself was simulated
        ["3", "creation_vfs_judgments", "sim-weak", "sim-fair-judge", True, None, None],
    ])
    view = {stage: flags for stage, *flags in con.execute(
        "SELECT stage, model_simulated, judge_simulated, simulated FROM cost_ledger").fetchall()}
    assert view == {"creation_generations": [False, None, False],
                    "creation_pairwise_judgments": [False, True, True],
                    "creation_vfs_judgments": [None, None, True]}


def test_answer_and_verdict_rows_are_flagged_by_the_same_rule(tmp_path):
    reg = registry(tmp_path)
    answers = flagged_rows("generations", pd.DataFrame({"model": ["http-writer", "sim-baseline"],
                                                        "simulated": [True, False]}), reg)
    assert "judge_simulated" not in answers  # an answer has no judge: NULL in the warehouse
    # the one rule wins over what a row builder wrote
    assert answers[["model_simulated", "simulated"]].values.tolist() == [[False, False], [True, True]]
    references = flagged_rows("creation_references", pd.DataFrame({"baseline": ["dataset", "sim-baseline"]}), reg)
    assert references[["model_simulated", "simulated"]].values.tolist() == [[False, False], [True, True]]
    verdicts = flagged_rows("creation_pairwise_judgments", pd.DataFrame(
        {"model": ["http-writer", "http-writer"], "judge": ["sim-fair-judge", "gone-judge"]}), reg)
    assert verdicts[["model_simulated", "judge_simulated", "simulated"]].values.tolist() == [
        [False, True, True], [False, False, False]]
    # the cross grid: a simulated reference model makes the row simulated, not its model or judge
    grid = flagged_rows("urs_cross_judgments", pd.DataFrame(
        {"model": ["http-writer"], "judge": ["gone-judge"], "reference_model": ["sim-baseline"]}), reg)
    assert grid[["model_simulated", "judge_simulated", "simulated"]].values.tolist() == [[False, False, True]]
    # an empty frame written to clear a table stays empty
    assert flagged_rows("creation_image_descriptions", pd.DataFrame(), reg).empty


NEW_FLAGS = ("model_simulated", "judge_simulated")


def _old_row(con, table: str, values: dict) -> None:
    """Insert a row as the previous version wrote it: the given values, a placeholder in every other NOT NULL
    column."""
    filler = {"VARCHAR": "x", "BOOLEAN": False, "INTEGER": 0, "BIGINT": 0, "DOUBLE": 0.0, "VARCHAR[]": [],
              "TIMESTAMP": pd.Timestamp("2026-01-01")}
    columns = con.execute("SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? "
                          "AND NOT is_nullable", [table]).fetchall()
    row = {name: filler[kind] for name, kind in columns} | values
    con.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))


def test_a_warehouse_of_the_previous_version_gains_the_flags_of_its_old_rows(tmp_path, monkeypatch):
    wh = Warehouse(database=str(tmp_path / "old.duckdb"))
    with wh.session() as con:  # the previous schema: the answer and verdict tables had one `simulated`
        for table in SIMULATION_SIDES:
            for flag in NEW_FLAGS:
                con.execute(f"ALTER TABLE {table} DROP COLUMN {flag}")
        for model, simulated in [("http-writer", False), ("sim-weak", True)]:
            _old_row(con, "generations", {"model": model, "simulated": simulated})
        _old_row(con, "creation_references", {"baseline": "sim-baseline", "simulated": True})
        # the judge's own call went to the simulator (the cost ledger's journal flag)
        _old_row(con, "llm_ledger", {"model": "sim-weak", "judge": "sim-fair-judge", "simulated": True})
        for model, judge, simulated in [("http-writer", "http-judge", False), ("http-writer", "sim-other", True),
                                        ("sim-weak", "sim-fair-judge", True), ("sim-weak", "sim-panel", True)]:
            _old_row(con, "creation_pairwise_judgments", {"model": model, "judge": judge, "simulated": simulated})
        for reference in ("http-writer", "sim-weak"):
            _old_row(con, "urs_cross_judgments", {"model": "http-writer", "judge": "sim-other",
                                                  "reference_model": reference, "simulated": True})
    with wh.session() as con:  # the file was brought to the previous version's DDL, not today's
        con.execute("UPDATE warehouse_schema SET ddl_sha256 = 'the previous version'")
    monkeypatch.setattr(warehouse_module, "_SCHEMA_APPLIED", set())  # a new process of the new version

    def flags(sql):
        with wh.session() as con:
            return [list(row) for row in con.execute(sql).fetchall()]

    assert flags("SELECT model, model_simulated, judge_simulated FROM generations ORDER BY model") == [
        ["http-writer", False, None], ["sim-weak", True, None]]
    assert flags("SELECT model_simulated, judge_simulated FROM creation_references") == [[True, None]]
    assert flags("SELECT judge, model_simulated, judge_simulated FROM creation_pairwise_judgments ORDER BY judge") == [
        ["http-judge", False, False],    # not simulated: neither side
        ["sim-fair-judge", True, True],  # the judge's calls went to the simulator
        ["sim-other", False, True],      # a real model: the judge was the simulated side
        ["sim-panel", True, None]]       # nothing tells: NULL until the partition is written again
    assert flags("SELECT reference_model, model_simulated, judge_simulated FROM urs_cross_judgments "
                 "ORDER BY reference_model") == [["http-writer", False, True], ["sim-weak", False, None]]
