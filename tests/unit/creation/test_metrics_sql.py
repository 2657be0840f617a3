"""The SQL the metric assets run (sql/creation/queries/) gives the same tables as the Python reference
(benchwright.creation.metrics) on the same warehouse rows, edge cases included."""

import duckdb
import numpy as np
import pandas as pd
import pytest

from benchwright.creation import metrics
from benchwright.creation.steps import PAIRWISE_COLUMNS, VFS_COLUMNS
from benchwright.pairwise import CANONICAL_VERDICTS, outcome
from benchwright.paths import ROOT, sql_files

CATEGORIES = {"poem": "Literary Writing", "story": "Literary Writing", "recipe": "Professional Functional Writing",
              "ad": "Creative Writing"}


def _warehouse(pairwise: pd.DataFrame, vfs: pd.DataFrame, items: pd.DataFrame) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for ddl in sql_files("ddl"):
        con.execute(ddl.read_text(encoding="utf-8"))
    full_items = items.assign(dataset="d", role="r", background="b", instruction="i", subjective_criteria="c",
                              requirements=[["x"]] * len(items), image_hashes=[["h"]] * len(items))
    for table, rows in (("creation_pairwise_judgments", pairwise), ("creation_vfs_judgments", vfs),
                        ("creation_items", full_items)):
        if len(rows):
            con.register("incoming", rows)
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming")
            con.unregister("incoming")
    return con


def _sql(con: duckdb.DuckDBPyConnection, query: str) -> pd.DataFrame:
    return con.execute((ROOT / "sql" / query).read_text(encoding="utf-8")).df()


def _python(con: duckdb.DuckDBPyConnection) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What the assets computed before the SQL: every answered judgment read into pandas."""
    pairwise = con.execute("SELECT * FROM creation_pairwise_judgments WHERE error IS NULL").df()
    vfs = con.execute("SELECT * FROM creation_vfs_judgments WHERE error IS NULL").df()
    items = con.execute("SELECT item_id, category, task FROM creation_items").df()
    return metrics.leaderboard(pairwise, vfs, items), metrics.judge_quality(pairwise)


def _judgments(seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Judgments as the assets write them, with every case the metrics treat specially."""
    rng = np.random.default_rng(seed)
    item_ids = [f"i{k}" for k in range(24)]
    tasks = list(CATEGORIES)
    items = pd.DataFrame({"item_id": item_ids[:20], "task": [tasks[k % 4] for k in range(20)]})
    items["category"] = items["task"].map(CATEGORIES)  # i20..i23 are judged but not in creation_items

    pairwise, vfs = [], []
    for judge in ("j-fair", "j-first", "j-broken"):
        for model in ("m-vision", "m-text", "m-novfs"):
            for item_id in item_ids:
                orders = (1,) if item_id in ("i3", "i21") else (1, 2)  # single-order items
                for order in orders:
                    position = "B" if order == 1 else "A"
                    failed_call = rng.random() < 0.08
                    unparsed = judge == "j-broken" or rng.random() < 0.1
                    verdict = None if failed_call or unparsed else str(rng.choice(CANONICAL_VERDICTS))
                    lengths = rng.integers(90, 110, 2)  # equal lengths happen: not comparable
                    imported = model == "m-text" and item_id in ("i5", "i6")  # no answer lengths
                    pairwise.append({
                        "model": model, "judge": judge, "item_id": item_id, "judge_order": order,
                        "candidate_position": position, "raw_text": "...", "verdict": verdict,
                        "parse_ok": verdict is not None,
                        "parse_problem": None if verdict or failed_call else "no_verdict",
                        "outcome": None if failed_call else outcome(verdict, position),
                        "error": "timeout" if failed_call else None,
                        "candidate_len": None if imported else int(lengths[0]),
                        "baseline_len": None if imported else int(lengths[1]),
                        "request_key": "k", "simulated": True, "source": "benchwright",
                    })
                if model == "m-novfs":
                    continue
                failed_call, unparsed = rng.random() < 0.08, rng.random() < 0.15
                score = None if failed_call or unparsed else float(rng.integers(0, 21)) / 2
                vfs.append({"model": model, "judge": judge, "item_id": item_id, "raw_text": "...",
                            "score_a": 5.0, "score_b": score, "parse_ok": score is not None,
                            "parse_problem": None, "error": "timeout" if failed_call else None,
                            "request_key": "k", "simulated": True, "source": "benchwright"})
    # A judge with VFS judgments only, and an imported duplicate of one judgment (the first stored counts).
    vfs.append({**vfs[0], "judge": "j-vfs-only", "score_b": 7.5, "parse_ok": True, "error": None})
    duplicate = next(r for r in pairwise if r["verdict"] and r["judge_order"] == 2)
    pairwise.append({**duplicate, "verdict": "A=B", "outcome": "T", "source": "import"})
    return pd.DataFrame(pairwise, columns=PAIRWISE_COLUMNS), pd.DataFrame(vfs, columns=VFS_COLUMNS), items


def _assert_same(sql: pd.DataFrame, python: pd.DataFrame) -> None:
    assert list(sql.columns) == list(python.columns)
    pd.testing.assert_frame_equal(sql, python, check_dtype=False, check_exact=False, rtol=1e-12)
    for column in python.columns:  # integers stay integers, floats stay floats (NaN for "no evidence")
        assert sql[column].dtype.kind == python[column].dtype.kind or python[column].dtype == object, column


def test_sql_leaderboard_and_judge_quality_equal_the_python_reference():
    pairwise, vfs, items = _judgments()
    con = _warehouse(pairwise, vfs, items)
    board, quality = _python(con)

    sql_board = _sql(con, metrics.LEADERBOARD_SQL)
    _assert_same(sql_board, board)
    _assert_same(_sql(con, metrics.JUDGE_QUALITY_SQL), quality)

    # The cases are really there, so the comparison covers them.
    overall = sql_board[sql_board["scope"] == "overall"].set_index(["judge", "model"])
    assert overall.loc[("j-broken", "m-vision"), "n"] == 0 and np.isnan(overall.loc[("j-broken", "m-vision"), "reward"])
    assert overall.loc[("j-fair", "m-novfs"), "vfs_n"] == 0 and np.isnan(overall.loc[("j-fair", "m-novfs"), "vfs"])
    assert overall.loc[("j-vfs-only", "m-vision"), "vfs"] == 7.5
    judged = overall.drop(("j-vfs-only", "m-vision"))
    assert (judged["fail"] > 0).all() and judged["tie"].sum() > 0
    # Failed calls count nowhere: parsed + unparsed judgments = answered calls.
    answered = pairwise[pairwise["error"].isna()].groupby(["judge", "model"]).size()
    assert ((judged["n"] + judged["fail"]) == answered).all()
    # Items missing from creation_items count in 'overall' only.
    by_category = sql_board[sql_board["scope"] == "category"].groupby(["judge", "model"])[["n", "fail"]].sum().reindex(judged.index)
    assert ((by_category["n"] + by_category["fail"]) < (judged["n"] + judged["fail"])).all()


def test_sql_paths_on_empty_tables_and_items_without_judgments():
    empty = _warehouse(pd.DataFrame(columns=PAIRWISE_COLUMNS), pd.DataFrame(columns=VFS_COLUMNS),
                       pd.DataFrame({"item_id": ["i1"], "task": ["poem"], "category": ["Literary Writing"]}))
    assert _sql(empty, metrics.LEADERBOARD_SQL).empty and _sql(empty, metrics.JUDGE_QUALITY_SQL).empty


@pytest.mark.parametrize("column, value, message", [("outcome", "Lost", "unknown outcome"),
                                                    ("verdict", "A>>>B", "not a canonical verdict")])
def test_sql_refuses_values_the_reference_refuses(column, value, message):
    pairwise, vfs, items = _judgments()
    answered = pairwise.index[pairwise["parse_ok"] & (pairwise["judge_order"] == 1) & (pairwise["item_id"] == "i1")]
    pairwise.loc[answered, column] = value
    con = _warehouse(pairwise, vfs, items)
    query = metrics.LEADERBOARD_SQL if column == "outcome" else metrics.JUDGE_QUALITY_SQL
    with pytest.raises(duckdb.Error, match=message):
        _sql(con, query)
    with pytest.raises(ValueError):
        _python(con)
