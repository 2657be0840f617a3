import pandas as pd
import pytest

from benchwright.creation.suites import SUITES
from benchwright.quality import validate_frame


def pairwise_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["m1", "m1", "m2", "m2"],
            "judge": ["j"] * 4,
            "item_id": ["i1", "i1", "i1", "i1"],
            "judge_order": [1, 2, 1, 2],
            "candidate_position": ["B", "A", "B", "A"],
            "raw_text": ["... [[B>A]]", "... [[A>B]]", "no verdict", "... [[A=B]]"],
            "verdict": ["B>A", "A>B", None, "A=B"],
            "parse_ok": [True, True, False, True],
            "outcome": ["B", "B", "Fail", "T"],
        }
    )


def vfs_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["m1", "m2"],
            "judge": ["j", "j"],
            "item_id": ["i1", "i1"],
            "raw_text": ["A: 8/10 B: 7/10", "unparseable"],
            "score_a": [8.0, None],
            "score_b": [7.0, None],
            "parse_ok": [True, False],
        }
    )


def failure_for(report, expectation: str) -> dict:
    matches = [f for f in report.failures if f["expectation"] == expectation]
    assert len(matches) == 1, report.failures
    return matches[0]


def test_valid_frames_pass():
    report = validate_frame(pairwise_frame(), SUITES["creation_pairwise_judgments"])
    assert report.success and report.failures == []
    assert report.evaluated >= 9  # one per column for columns_exist, plus the value checks
    assert validate_frame(vfs_frame(), SUITES["creation_vfs_judgments"]).success


def test_out_of_range_score_fails_naming_column():
    df = vfs_frame()
    df.loc[0, "score_b"] = 11.0
    report = validate_frame(df, SUITES["creation_vfs_judgments"])
    assert not report.success
    failure = failure_for(report, "expect_column_values_to_be_between")
    assert failure["columns"] == ["score_b"]
    assert failure["unexpected_count"] == 1
    assert failure["unexpected_values"] == [11.0]


def test_bad_enum_fails_naming_column():
    df = pairwise_frame()
    df.loc[1, "verdict"] = "A>>>B"
    report = validate_frame(df, SUITES["creation_pairwise_judgments"])
    assert not report.success
    failure = failure_for(report, "expect_column_values_to_be_in_set")
    assert failure["columns"] == ["verdict"]
    assert failure["unexpected_values"] == ["A>>>B"]


def test_null_outcome_of_a_returned_call_fails_the_answered_suite():
    df = pairwise_frame()
    df["outcome"] = df["outcome"].astype(object)
    df.loc[0, "outcome"] = None
    assert validate_frame(df, SUITES["creation_pairwise_judgments"]).success  # could be a failed call
    report = validate_frame(df, SUITES["creation_pairwise_judgments_answered"])
    failure = failure_for(report, "expect_column_values_to_not_be_null")
    assert failure["columns"] == ["outcome"]


def test_duplicate_compound_key_fails():
    df = pairwise_frame()
    df.loc[3, "judge_order"] = 1  # m2/j/i1 now judged twice in order 1
    report = validate_frame(df, SUITES["creation_pairwise_judgments"])
    failure = failure_for(report, "expect_compound_columns_to_be_unique")
    assert failure["columns"] == ["model", "judge", "item_id", "judge_order"]
    assert failure["unexpected_count"] == 2
    assert failure["unexpected_values"] == [["m2", "j", "i1", 1]]


def test_single_column_unique():
    df = pd.DataFrame(
        {
            "judge": ["j1", "j1"],
            "exact_consistency": [0.5, 0.7],
            "relaxed_consistency": [0.9, None],
            "parse_rate": [1.0, 0.9],
            "p_prefer_first": [0.5, 0.6],
            "p_prefer_longer": [0.4, 0.5],
        }
    )
    report = validate_frame(df, SUITES["judge_quality"])
    assert failure_for(report, "expect_column_values_to_be_unique")["columns"] == ["judge"]


def test_missing_column_fails_naming_column():
    df = pairwise_frame().drop(columns=["raw_text"])
    report = validate_frame(df, SUITES["creation_pairwise_judgments"])
    assert not report.success
    failure = failure_for(report, "expect_column_to_exist")
    assert failure["columns"] == ["raw_text"]


def test_missing_column_in_value_check_is_a_failure_not_a_crash():
    df = vfs_frame().drop(columns=["score_a"])
    report = validate_frame(df, [{"type": "column_values_between", "column": "score_a", "min": 0, "max": 10}])
    assert not report.success
    assert report.failures[0]["columns"] == ["score_a"]
    assert "score_a" in report.failures[0]["observed"]


def test_not_null_spec():
    df = pd.DataFrame({"raw_text": ["ok", None, "fine"]})
    report = validate_frame(df, [{"type": "column_not_null", "column": "raw_text"}])
    failure = failure_for(report, "expect_column_values_to_not_be_null")
    assert failure["columns"] == ["raw_text"] and failure["unexpected_count"] == 1


def test_allow_null_between():
    df = pd.DataFrame({"x": [1.0, None]})
    spec = {"type": "column_values_between", "column": "x", "min": 0, "max": 10}
    assert validate_frame(df, [{**spec, "allow_null": True}]).success
    assert not validate_frame(df, [spec]).success


def test_empty_frame_passes_unless_columns_missing():
    empty = pairwise_frame().iloc[:0]
    assert validate_frame(empty, SUITES["creation_pairwise_judgments"]).success
    report = validate_frame(empty.drop(columns=["verdict"]), SUITES["creation_pairwise_judgments"])
    assert not report.success
    assert ["verdict"] in [f["columns"] for f in report.failures]


def test_unknown_spec_type_raises():
    with pytest.raises(ValueError, match="column_is_pretty"):
        validate_frame(pd.DataFrame({"a": [1]}), [{"type": "column_is_pretty", "column": "a"}])


def test_leaderboard_and_generations_suites():
    board = pd.DataFrame(
        {
            "judge": ["j", "j"],
            "model": ["m1", "m1"],
            "scope": ["overall", "category"],
            "scope_value": ["all", "poetry"],
            "reward": [12.5, -150.0],
            "win_rate": [0.4, 0.2],
            "vfs": [7.5, None],
        }
    )
    report = validate_frame(board, SUITES["creation_leaderboard"])
    assert [f["columns"] for f in report.failures] == [["reward"]]

    gens = pd.DataFrame(
        {
            "benchmark": ["creation"] * 2,
            "model": ["m1"] * 2,
            "item_id": ["i1"] * 2,
            "sample_index": [0, 1],
            "response": ["a", None],
            "error": [None, "timeout"],
        }
    )
    assert validate_frame(gens, SUITES["generations"]).success


def test_a_failed_call_is_its_own_figure_not_a_schema_violation():
    from checks.results import schema_result

    def row(order, outcome, error=None):
        return {"model": "m", "judge": "j", "item_id": "i", "judge_order": order, "candidate_position": "B" if order == 1 else "A",
                "raw_text": None if error else "[[A>B]]", "verdict": None if error else "A>B", "parse_ok": error is None,
                "outcome": outcome, "error": error}

    suites = (SUITES["creation_pairwise_judgments"],)
    answered = SUITES["creation_pairwise_judgments_answered"]
    one_failed_call = pd.DataFrame([row(1, "W"), row(2, None, error="RateLimitError: 429")])
    result = schema_result(one_failed_call, *suites, answered_expectations=answered)
    assert result.passed and result.metadata["failed_calls"].value == 1
    # A call that returned must still have an outcome (a parse failure is 'Fail', never missing).
    returned_without_outcome = pd.DataFrame([row(1, "W"), row(2, None)])
    result = schema_result(returned_without_outcome, *suites, answered_expectations=answered)
    assert not result.passed and result.metadata["failed_calls"].value == 0


# One good and one bad frame per spec kind. Each pair is validated twice in turn in this process, so
# the second round runs on the suite built (and cached) in the first: a suite must not carry anything
# from one frame to the next.
SPEC_KINDS = {
    "range": ({"type": "column_values_between", "column": "x", "min": 0, "max": 10},
              pd.DataFrame({"x": [1.0, 10.0]}), pd.DataFrame({"x": [1.0, 11.0, 12.0]}),
              "expect_column_values_to_be_between", {"unexpected_count": 2, "unexpected_values": [11.0, 12.0]}),
    "set": ({"type": "column_values_in_set", "column": "x", "values": ["a", "b"]},
            pd.DataFrame({"x": ["a", "b"]}), pd.DataFrame({"x": ["a", "c"]}),
            "expect_column_values_to_be_in_set", {"unexpected_count": 1, "unexpected_values": ["c"]}),
    "not_null": ({"type": "column_not_null", "column": "x"},
                 pd.DataFrame({"x": ["a", "b"]}), pd.DataFrame({"x": ["a", None]}),
                 "expect_column_values_to_not_be_null", {"unexpected_count": 1}),
    "unique": ({"type": "columns_unique", "columns": ["x"]},
               pd.DataFrame({"x": [1, 2]}), pd.DataFrame({"x": [1, 1]}),
               "expect_column_values_to_be_unique", {"unexpected_count": 2, "unexpected_values": [1]}),
    "compound_unique": ({"type": "columns_unique", "columns": ["x", "y"]},
                        pd.DataFrame({"x": [1, 1], "y": ["a", "b"]}), pd.DataFrame({"x": [1, 1], "y": ["a", "a"]}),
                        "expect_compound_columns_to_be_unique", {"unexpected_count": 2,
                                                                 "unexpected_values": [[1, "a"]]}),
    "columns_exist": ({"type": "columns_exist", "columns": ["x", "y"]},
                      pd.DataFrame({"x": [1], "y": [2]}), pd.DataFrame({"x": [1]}),
                      "expect_column_to_exist", {"observed": "column missing", "columns": ["y"]}),
}


@pytest.mark.parametrize("kind", sorted(SPEC_KINDS))
def test_each_spec_kind_passes_a_good_frame_and_fails_a_bad_one_repeatedly(kind):
    spec, good, bad, expectation, expected = SPEC_KINDS[kind]
    failures_seen = []
    for _ in range(2):
        good_report = validate_frame(good, [spec])
        assert good_report.success and good_report.failures == []
        bad_report = validate_frame(bad, [spec])
        assert not bad_report.success and bad_report.evaluated == good_report.evaluated
        failure = failure_for(bad_report, expectation)
        assert {k: failure[k] for k in expected} == expected
        failures_seen.append(bad_report.failures)
    assert failures_seen[0] == failures_seen[1]


def test_a_suite_is_built_once_per_spec_list():
    from benchwright.quality import _suite

    specs = SUITES["creation_vfs_judgments"]
    assert _suite(specs) is _suite([dict(spec) for spec in specs])
    assert _suite(specs) is not _suite(SUITES["judge_quality"])


def test_narrow_integer_columns_give_the_same_report_as_int64():
    # DuckDB's INTEGER arrives as int32; GX compares other widths than int64 value by value.
    spec = [{"type": "column_values_between", "column": "score", "min": 1, "max": 10},
            {"type": "column_values_in_set", "column": "order", "values": [1, 2]}]
    wide = pd.DataFrame({"score": [1, 10, 0, 11, 11], "order": [1, 2, 3, 1, 2]})
    narrow = wide.astype({"score": "int32", "order": "int16"})
    assert validate_frame(narrow, spec) == validate_frame(wide, spec)
    assert failure_for(validate_frame(narrow, spec), "expect_column_values_to_be_between")["unexpected_values"] == [11, 0]


def test_columns_named_lists_each_column_once_in_order():
    from benchwright.quality import columns_named

    assert columns_named(SUITES["creation_vfs_judgments"]) == [
        "model", "judge", "item_id", "raw_text", "score_a", "score_b", "parse_ok"]
    assert columns_named([{"type": "column_not_null", "column": "a"},
                          {"type": "columns_unique", "columns": ["b", "a"]}]) == ["a", "b"]


def test_a_bad_frame_fails_on_each_fault_at_once():
    # Wrong type (text scores), out of range, a null, a missing column: each reported, in the suite's order
    # (the errors that stopped an expectation first, as GX lists them), and every check counted.
    df = pd.DataFrame({"model": ["m1", "m2", "m3"], "judge": "j", "item_id": "i1", "raw_text": ["a", None, "c"],
                       "score_a": ["8", "nine", "7"], "score_b": [7.0, 12.0, None]})
    report = validate_frame(df, SUITES["creation_vfs_judgments"])
    assert not report.success
    assert report.evaluated == 7 + 2 + 1  # one per column of columns_exist, two ranges, the key
    assert [(f["expectation"], f["columns"]) for f in report.failures] == [
        ("expect_column_values_to_be_between", ["score_a"]),
        ("expect_column_to_exist", ["parse_ok"]),
        ("expect_column_values_to_be_between", ["score_b"]),
    ]
    assert "same type" in report.failures[0]["observed"]
    assert report.failures[1]["observed"] == "column missing"
    assert report.failures[2]["unexpected_count"] == 1 and report.failures[2]["unexpected_values"] == [12.0]
    nulls = validate_frame(df, [{"type": "column_not_null", "column": "raw_text"}])
    assert failure_for(nulls, "expect_column_values_to_not_be_null")["unexpected_count"] == 1


def test_columns_exist_is_one_expectation_yet_reports_and_counts_each_column():
    from benchwright.quality import _suite

    spec = [{"type": "columns_exist", "columns": ["a", "b", "c", "d"]}]
    assert len(_suite(spec).expectation_configurations) == 1  # GX's cost is per expectation
    report = validate_frame(pd.DataFrame({"c": [1], "a": [2], "other": [3]}), spec)
    assert not report.success and report.evaluated == 4
    assert report.failures == [{"expectation": "expect_column_to_exist", "columns": [column], "observed": "column missing"}
                               for column in ("b", "d")]
    assert validate_frame(pd.DataFrame({"d": [1], "c": [1], "b": [1], "a": [1], "e": [1]}), spec).success
