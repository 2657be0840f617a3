"""`dev.py leaderboards` and `dev.py show` (scripts/leaderboards.py) on a small published snapshot: two judges'
Creation ratings under two controls, their Reward rows, one URS row. What they print is checked against the rows
written; the command's speed is measured by hand (bench/README.md), not here."""

from __future__ import annotations

import pandas as pd
import pytest

import dev
from resources.warehouse import Warehouse
from scripts import leaderboards

# (judge, control) -> model: (rating, lower, upper)
RATINGS = {
    ("judge-one", "none"): {"baseline": (1000.0, 1000.0, 1000.0), "model-x": (1123.4, 1010.5, 1250.0),
                            "model-y": (940.0, 880.2, 990.9)},
    ("judge-one", "style"): {"baseline": (1000.0, 1000.0, 1000.0), "model-x": (1044.4, 960.1, 1130.7),
                             "model-y": (1002.5, 930.0, 1070.0)},
    ("judge-two", "none"): {"baseline": (1000.0, 1000.0, 1000.0), "model-x": (980.0, 900.0, 1060.0),
                            "model-y": (1210.0, 1100.0, 1320.0)},
}
REWARDS = {("judge-one", "model-x"): 31.5, ("judge-one", "model-y"): -12.5, ("judge-two", "model-x"): -4.0,
           ("judge-two", "model-y"): 40.0}


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    folder = tmp_path_factory.mktemp("leaderboards")
    warehouse = Warehouse(database=str(folder / "w.duckdb"), snapshot_path=str(folder / "analyst.duckdb"))
    ratings = [{"source": "benchwright", "judge": judge, "model": model, "anchor": "baseline", "control": control,
                "rating": r, "rating_lower": lo, "rating_upper": hi, "win_rate": 50.0, "judgments": 4,
                "weighted_battles": 4.0, "wins": 2, "ties": 0, "losses": 2, "at_bound": False,
                "outcome_weights": "A>B=1", "single_game_rule": "none", "bootstrap_rounds": 10, "quantile_low": 0.025,
                "quantile_high": 0.975, "seed": 0, "simulated": False, "rank": 1}
               for (judge, control), models in RATINGS.items() for model, (r, lo, hi) in models.items()]
    overall = [{"judge": judge, "model": model, "scope": "overall", "scope_value": "all", "reward": reward,
                "win_rate": 0.5, "n": 4, "simulated": False} for (judge, model), reward in REWARDS.items()]
    urs = [{"judge": "judge-one", "model": "model-x", "intent": "all", "language": "all", "final_score": 6.25, "n": 3,
            "parse_failures": 0, "simulated": False}]
    warehouse.write_tables([("interop_ratings", pd.DataFrame(ratings), {}),
                            ("creation_leaderboard", pd.DataFrame(overall), {}),
                            ("urs_leaderboard", pd.DataFrame(urs), {})])
    warehouse.publish_snapshot()
    return folder / "analyst.duckdb"


@pytest.fixture
def con(snapshot):
    import duckdb

    connection = duckdb.connect(str(snapshot), read_only=True)
    yield connection
    connection.close()


def _table(text: str) -> list[dict[str, str]]:
    """The rows of a printed table by column, cut where the rule's dashes are (a cell may be empty)."""
    import re

    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("----"))
    spans = [m.span() for m in re.finditer(r"-+", lines[rule])]
    header = [lines[rule - 1][a:b].strip() for a, b in spans]
    return [{name: line[a:b].strip() for name, (a, b) in zip(header, spans)}
            for line in lines[rule + 1:] if line.strip()]


def test_the_listing_names_each_leaderboard_view_with_its_rows_judges_and_controls(con):
    text = leaderboards.listing(con)
    rows = {row["view"]: row for row in _table(text.split("\n\n")[0])}
    assert rows["interop_leaderboard"] == {"view": "interop_leaderboard", "rows": str(sum(map(len, RATINGS.values()))),
                                           "judges": "judge-one, judge-two", "controls": "none, style",
                                           "sources": "benchwright"}
    assert (rows["creation_leaderboard_overall"]["rows"], rows["creation_leaderboard_overall"]["judges"]) == \
        (str(len(REWARDS)), "judge-one, judge-two")
    assert (rows["urs_leaderboard_overall"]["rows"], rows["urs_leaderboard_overall"]["judges"]) == ("1", "judge-one")
    assert (rows["mmmt_if_leaderboard"]["rows"], rows["mmmt_if_leaderboard"]["judges"]) == ("0", "(no judge)")
    # Every declared benchmark is named as something `show` takes.
    assert "dev.py show {creation,urs,mmmt_if,gap}" in text


@pytest.mark.parametrize("judge, control", [("judge-one", None), ("judge-one", "style"), ("judge-two", None)])
def test_show_creation_prints_one_judges_ratings_with_intervals_best_first(con, judge, control):
    text = leaderboards.show(con, "creation", judge=judge, control=control)
    assert text.splitlines()[0].endswith(f"; judge {judge}; control {control or 'none'} ==")
    expected = sorted(RATINGS[(judge, control or "none")].items(), key=lambda kv: -kv[1][0])
    rows = _table(text)
    assert [r["model"] for r in rows] == [model for model, _ in expected] and {r["judge"] for r in rows} == {judge}
    for row, (model, (rating, lower, upper)) in zip(rows, expected):
        # Console tables show figures of 1000 and more without decimals (benchwright.report).
        shown = [float(row[c]) for c in ("rating", "rating_lower", "rating_upper")]
        assert all(abs(v - x) <= 0.5 for v, x in zip(shown, (rating, lower, upper)))
        reward = REWARDS.get((judge, model))  # the baseline has none
        assert row["reward"] == ("" if reward is None else f"{reward:g}")


def test_show_refuses_what_the_snapshot_cannot_answer_and_says_what_it_can(con):
    with pytest.raises(leaderboards.Refused, match="judges: judge-one, judge-two"):
        leaderboards.show(con, "creation", judge="judge-three")
    with pytest.raises(leaderboards.Refused, match="control 'markdown'"):
        leaderboards.show(con, "creation", judge="judge-two", control="markdown")
    with pytest.raises(leaderboards.Refused, match="no controls"):
        leaderboards.show(con, "urs", control="style")
    with pytest.raises(leaderboards.Refused, match="has no judge"):
        leaderboards.show(con, "mmmt_if", judge="judge-one")
    with pytest.raises(leaderboards.Refused, match="declared: creation, urs, mmmt_if, gap"):
        leaderboards.show(con, "nothing")


def test_the_command_line_prints_or_exits_with_the_reason(snapshot, tmp_path, capsys):
    assert leaderboards.main(["show", "urs", "--judge", "judge-one", "--snapshot", str(snapshot)]) == 0
    [row] = _table(capsys.readouterr().out)
    assert (row["judge"], row["model"], row["final_score"]) == ("judge-one", "model-x", "6.25")
    assert leaderboards.main(["show", "creation", "--judge", "nobody", "--snapshot", str(snapshot)]) == 2
    assert "judges: judge-one, judge-two" in capsys.readouterr().err
    assert leaderboards.main(["leaderboards", "--snapshot", str(tmp_path / "none.duckdb")]) == 1
    assert "run `python3.11 dev.py demo` (or run) first" in capsys.readouterr().err
    # dev.py hands both commands to this script, arguments untouched.
    assert dev.quick_answer("show", ["creation", "--judge", "j"])[1:] == [
        str(dev.ROOT / "scripts" / "leaderboards.py"), "show", "creation", "--judge", "j"]
    assert set(dev.QUICK_ANSWERS) == {"leaderboards", "show"}
