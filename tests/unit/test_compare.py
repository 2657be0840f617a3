"""Comparisons item by item (sql/core/queries/compare/, views compare_models and compare_judges, benchwright.compare)
on a small hand-made warehouse whose every figure is counted by hand in the comments."""

import duckdb
import pandas as pd
import pytest

from benchwright import compare
from benchwright.creation.steps import PAIRWISE_COLUMNS
from benchwright.paths import ROOT, sql_files

# The candidate's outcome -> the verdict as displayed, with the candidate in B (order 1) or in A (order 2).
AS_B = {"MB": "B>>A", "B": "B>A", "T": "A=B", "W": "A>B", "MW": "A>>B"}
AS_A = {"MB": "A>>B", "B": "A>B", "T": "A=B", "W": "B>A", "MW": "B>>A"}

# (judge, model) -> per item (outcome in order 1, outcome in order 2); Fail = unparsed.
OUTCOMES = {
    ("J", "m1"): {"i1": ("MB", "B"), "i2": ("W", "W"), "i3": ("T", "B"), "i4": ("Fail", "Fail")},
    ("J", "m2"): {"i1": ("W", "MW"), "i2": ("B", "B"), "i3": ("B", "T"), "i4": ("B", "T")},
    ("K", "m1"): {"i1": ("B", "W"), "i2": ("W", "MW"), "i3": ("Fail", "T"), "i4": ("T", "T")},
}


def _rows() -> pd.DataFrame:
    rows = []
    for (judge, model), items in OUTCOMES.items():
        for item, outcomes in items.items():
            for order, result in zip((1, 2), outcomes):
                verdict = None if result == "Fail" else (AS_B if order == 1 else AS_A)[result]
                rows.append({"model": model, "judge": judge, "item_id": item, "judge_order": order,
                             "candidate_position": "B" if order == 1 else "A", "verdict": verdict,
                             "parse_ok": verdict is not None, "outcome": result, "error": None,
                             "simulated": True, "source": "benchwright"})
    # Left out: a failed call, and an imported judgment.
    rows.append({**rows[0], "model": "m3", "outcome": None, "verdict": None, "parse_ok": False, "error": "timeout"})
    rows.append({**rows[0], "model": "m9", "source": "arena_hard:x"})
    return pd.DataFrame(rows).reindex(columns=PAIRWISE_COLUMNS)


@pytest.fixture(scope="module")
def con():
    con = duckdb.connect()
    for ddl in sql_files("ddl"):
        con.execute(ddl.read_text(encoding="utf-8"))
    con.register("incoming", _rows())
    con.execute("INSERT INTO creation_pairwise_judgments BY NAME SELECT * FROM incoming")
    for table, query in (("comparison_model_items", "model_items"), ("comparison_models", "models"),
                         ("comparison_judge_items", "judge_items"), ("comparison_judges", "judges")):
        con.register("incoming", con.execute((ROOT / "sql" / "core" / "queries" / "compare" / f"{query}.sql").read_text()).df())
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming")
    for view in ("compare_models", "compare_judges"):
        con.execute((ROOT / "sql" / "core" / "views" / f"{view}.sql").read_text())
    return con


def test_two_candidates_under_one_judge(con):
    pairs = con.sql("SELECT * FROM compare_models").df()
    assert set(zip(pairs["model_a"], pairs["model_b"])) == {("m1", "m2"), ("m2", "m1")}  # no m3, no m9
    one = pairs[pairs["model_a"] == "m1"].iloc[0]
    # Values m1 / m2: i1 1.5 / -1.5 (flip to m1), i2 -1 / 1 (flip to m2), i3 0.5 / 0.5, i4 none / 0.5.
    assert one["judge"] == "J" and one["items"] == 4 and one["compared"] == 3
    assert (one["wins_a"], one["wins_b"], one["win_delta"]) == (2, 2, 0)
    assert (one["losses_a"], one["losses_b"], one["loss_delta"]) == (1, 1, 0)
    assert (one["a_won_b_lost"], one["b_won_a_lost"], one["flipped"]) == (1, 1, 2)
    assert one["agreement"] == pytest.approx(1 / 3) and one["mean_value_delta"] == pytest.approx(1 / 3)
    other = pairs[pairs["model_a"] == "m2"].iloc[0]
    assert (other["a_won_b_lost"], other["b_won_a_lost"]) == (1, 1)
    assert other["mean_value_delta"] == pytest.approx(-1 / 3) and other["agreement"] == one["agreement"]


def test_two_judges_on_the_same_units(con):
    pairs = con.sql("SELECT * FROM compare_judges").df()
    assert set(pairs["model"]) == {"m1", "all"}  # K judged m1 only
    jk = pairs[(pairs["model"] == "m1") & (pairs["judge_a"] == "J")].iloc[0]
    # Units both parsed: i1 (both orders), i2 (both), i3 order 2. J: win win loss loss win; K: win loss loss loss tie.
    assert jk["units"] == 8 and jk["compared"] == 5
    assert (jk["wins_a"], jk["wins_b"], jk["win_delta"]) == (3, 1, 2)
    assert (jk["losses_a"], jk["losses_b"], jk["loss_delta"]) == (2, 3, -1)
    assert (jk["a_won_b_lost"], jk["b_won_a_lost"], jk["flipped"]) == (1, 0, 1)
    assert jk["agreement"] == pytest.approx(3 / 5)
    assert jk["exact_agreement"] == pytest.approx(1 / 5)  # only i2 order 1: A>B from both
    assert (jk["unparsed_a"], jk["unparsed_b"]) == (2, 1)  # J failed i4 twice; K failed i3 order 1
    kj = pairs[(pairs["model"] == "m1") & (pairs["judge_a"] == "K")].iloc[0]
    assert (kj["win_delta"], kj["loss_delta"], kj["unparsed_a"]) == (-2, 1, 1)
    overall = pairs[(pairs["model"] == "all") & (pairs["judge_a"] == "J")].iloc[0]
    assert overall.drop("model").equals(jk.drop("model"))


def test_the_cli_text_orients_the_stored_items_and_lists_the_flips(con):
    items = con.sql("SELECT * FROM comparison_model_items").df()
    oriented = compare.orient(items, "model", "m2", "m1")
    assert set(oriented["model_a"]) == {"m2"}
    assert oriented.set_index("item_id").loc["i1", "value_a"] == pytest.approx(-1.5)
    summary = con.sql("SELECT * FROM compare_models WHERE model_a = 'm2'").df()
    text = compare.report("models", "m2", "m1", summary, oriented)
    assert "model m2 (a) vs m1 (b)" in text and "2 items flipped" in text and "i1" in text and "i2" in text
    assert "nothing to compare" in compare.report("models", "m2", "zz", summary.iloc[0:0], oriented.iloc[0:0])
    assert compare.preview(summary.iloc[0:0], "models") == "_(no pairs to compare)_"
    assert "m1" in compare.preview(con.sql("SELECT * FROM compare_models").df(), "models")
