"""Redundancy with other benchmarks: reading dropped score files, and Spearman / R² against our leaderboards."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchwright.redundancy import read_scores_csv, read_scores_folder, redundancy

ALIASES = {"strongwriter": "sim-strong", "sim-strong": "sim-strong", "sim-weak": "sim-weak"}


def test_a_score_file_is_read_by_model_and_benchmark(tmp_path):
    path = tmp_path / "others.csv"
    path.write_bytes("\ufeffmodel,MMMU,Arena Hard\r\nStrong Writer,61.5,\r\nsim-weak,40,12.5\r\n"
                     "unknown-model,50,n/a\r\n\r\n,1,2\r\n".encode())
    rows, problems = read_scores_csv(path, ALIASES)
    got = {(r["benchmark"], r["model"], r["score"], r["source_line"]) for r in rows}
    assert got == {("MMMU", "sim-strong", 61.5, 2), ("MMMU", "sim-weak", 40.0, 3), ("Arena Hard", "sim-weak", 12.5, 3),
                   ("MMMU", "unknown-model", 50.0, 4)}
    assert [r["model_as_written"] for r in rows if r["model"] == "sim-strong"] == ["Strong Writer"]
    assert {p["location"] for p in problems} == {"others.csv:4", "others.csv:6"}
    assert any("'n/a'" in p["reason"] for p in problems)  # a non-number is a problem, never a score


@pytest.mark.parametrize("content, reason", [
    ("name,MMMU\nsim-weak,1\n", "first column must be `model`"),
    ("model,MMMU\nsim-weak,1\nsim-strong,2", "still being written"),
    ("model,MMMU\nsim-weak,inf\n", "not a number"),
])
def test_a_bad_file_is_reported(tmp_path, content, reason):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    rows, problems = read_scores_csv(path, ALIASES)
    assert any(reason in p["reason"] for p in problems)
    assert all(r["model"] == "sim-weak" for r in rows)  # what came before the unfinished line is kept


def test_a_record_with_bytes_that_are_not_utf8_is_refused_alone(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_bytes(b"model,MMMU\nsim-weak,40\nsim-str\xffong,61\nstrongwriter,55\n")
    rows, problems = read_scores_csv(path, ALIASES)
    assert [(r["model"], r["score"]) for r in rows] == [("sim-weak", 40.0), ("sim-strong", 55.0)]
    assert problems == [{"location": "scores.csv:3", "reason": "bytes that are not UTF-8", "field": "model"}]
    path.write_bytes(b"model,MM\xffMU\nsim-weak,40\n")  # the header itself: nothing can be read
    rows, problems = read_scores_csv(path, ALIASES)
    assert rows == [] and problems == [{"location": "scores.csv:1", "reason": "the header holds bytes that are not UTF-8"}]


def test_a_score_given_twice_counts_once(tmp_path):
    (tmp_path / "a.csv").write_text("model,MMMU\nsim-weak,40\n")
    (tmp_path / "b.csv").write_text("model,MMMU,MMBench\nSIM-WEAK,41\nsim-strong,60,70\n")
    (tmp_path / "c.csv.part").write_text("model,MMMU\nsim-strong,1\n")
    scores, problems = read_scores_folder(tmp_path, ALIASES)
    assert len(scores) == 3
    assert scores.set_index(["benchmark", "model"])["score"].to_dict() == {
        ("MMMU", "sim-weak"): 40.0, ("MMMU", "sim-strong"): 60.0, ("MMBench", "sim-strong"): 70.0}
    assert problems == [{"location": "b.csv:2", "reason": "duplicate of a.csv:2"}]


def test_spearman_and_r2_over_the_models_scored_on_both():
    models = ["a", "b", "c", "d", "e"]
    ours = pd.DataFrame({"leaderboard": "creation_reward", "judge": "j", "model": models,
                         "score": [1.0, 2.0, 3.0, 4.0, 10.0]})
    theirs = pd.DataFrame({"benchmark": ["X"] * 5 + ["Y"] * 2 + ["Z"] * 4,
                           "model": models + ["a", "b"] + ["a", "b", "c", "zz"],
                           "score": [1.0, 4.0, 9.0, 16.0, 25.0, 1.0, 2.0, 5.0, 5.0, 5.0, 1.0]})
    table = redundancy(ours, theirs).set_index("other_benchmark")
    x = table.loc["X"]
    assert x["n_models"] == 5 and x["spearman"] == pytest.approx(1.0)  # same order, not a straight line
    expected_r2 = np.corrcoef([1, 2, 3, 4, 10], [1, 4, 9, 16, 25])[0, 1] ** 2
    assert x["r2"] == pytest.approx(expected_r2) and x["r2"] < 0.99
    assert x["spearman_p"] == pytest.approx(stats.spearmanr([1, 2, 3, 4, 10], [1, 4, 9, 16, 25]).pvalue)
    assert table.loc["Y", "n_models"] == 2 and pd.isna(table.loc["Y", "spearman"])  # too few models
    assert table.loc["Z", "n_models"] == 3 and pd.isna(table.loc["Z", "r2"])  # one side constant: undefined
    assert table.loc["Z", "models"] == "a, b, c"


@pytest.mark.parametrize("content, location, reason", [
    # A quote never closed would swallow every row after it into one cell: named where it opens.
    ("model,MMMU\nsim-weak,40\nsim-strong,\"61\nother,3\n", "q.csv:3", "quoted cell is never closed"),
    # Two columns of one name: which is the score? The file is refused, not read with one of them.
    ("model,MMMU,MMMU\nsim-weak,40,41\n", "q.csv:1", "'MMMU' appears twice"),
    # A cell beyond the header has no benchmark: the row is refused, not cut short.
    ("model,MMMU\nsim-weak,40,41\nsim-strong,60\n", "q.csv:2", "has 3 fields, header has 2"),
    ("model,MMMU\nsim-weak,\"4\"0\nsim-strong,60\n", "q.csv:2", "not valid CSV"),
])
def test_a_csv_the_reader_would_have_read_wrong_is_a_located_problem(tmp_path, content, location, reason):
    path = tmp_path / "q.csv"
    path.write_text(content)
    rows, problems = read_scores_csv(path, ALIASES)
    assert [p["location"] for p in problems] == [location]
    assert reason in problems[0]["reason"], problems[0]["reason"]
    assert {(r["model"], r["score"]) for r in rows} <= {("sim-weak", 40.0), ("sim-strong", 60.0)}
    assert all(r["source_line"] != int(location.split(":")[1]) for r in rows)  # nothing from the bad line


def test_rows_before_an_unclosed_quote_still_count(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("model,MMMU\nsim-weak,40\nsim-strong,\"61\nother,3\n")
    rows, [problem] = read_scores_csv(path, ALIASES)
    assert [(r["model"], r["score"]) for r in rows] == [("sim-weak", 40.0)]
    assert problem["reason"].endswith("(lines 3-4) is not read")


def test_a_score_under_a_column_without_a_name_is_a_problem_and_the_rest_of_its_row_counts(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("model,MMMU,\nsim-weak,40,41\nsim-strong,60,\n")  # a trailing comma is no score
    rows, problems = read_scores_csv(path, ALIASES)
    assert [(r["model"], r["score"]) for r in rows] == [("sim-weak", 40.0), ("sim-strong", 60.0)]
    assert problems == [{"location": "q.csv:2", "reason": "score '41' of sim-weak is in a column without a name",
                         "field": "column 3"}]
