"""The one rule for the simulation flags (assets.common.add_labels, and the ledger's per-row flags): a real
model judged by a simulated judge is model_simulated = false, judge_simulated = true, simulated = true."""

import duckdb
import pandas as pd

from assets.common import add_labels
from assets.ledger import side_flags
from benchwright.paths import sql_files
from resources.registry import Registry
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
