"""Judge panels (benchwright.panels): the registry file, the majority, mean and median aggregates, members'
agreement."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchwright import panels
from benchwright.creation.steps import PAIRWISE_COLUMNS, VFS_COLUMNS
from benchwright.pairwise import CANONICAL_VERDICTS
from benchwright.panels import PanelEntry, majority_verdict

ROOT = Path(__file__).resolve().parents[2]
THREE = PanelEntry(slug="trio", display_name="Trio", members=("j1", "j2", "j3"))


# --- the aggregate --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("votes", "expected"), [
    (["A>B", "A>B", "B>A"], "A>B"),                 # 2 of 3: a strict majority
    (["A>B", "A>>B", "B>A"], "A=B"),                # no verdict has more than half: a tie, A=B
    (["B>>A", "B>>A", "A>B", "A=B"], "A=B"),        # 2 of 4 is half, not more: a tie
    (["B>>A", "B>>A", "B>>A", "A=B"], "B>>A"),      # 3 of 4
    (["A>B", "B>A"], "A=B"),                        # an even panel that splits
    (["B>A", "B>A"], "B>A"),                        # an even panel that agrees
    (["A>B"], "A>B"),                               # the only parsed vote is all the votes
    ([], None),                                     # no vote, no verdict
])
def test_majority_of_the_parsed_votes_with_ties_to_a_equals_b(votes, expected):
    assert majority_verdict(votes) == expected


def test_a_vote_must_be_a_canonical_verdict():
    with pytest.raises(ValueError, match="not a canonical verdict"):
        majority_verdict(["A>B", "A>>>B"])


def _pairwise(rows):
    """Member rows of creation_pairwise_judgments: (judge, item, order, verdict or None, error or None)."""
    return pd.DataFrame([{
        "model": "m", "judge": judge, "item_id": item, "judge_order": order,
        "candidate_position": "B" if order == 1 else "A", "raw_text": "...", "verdict": verdict,
        "parse_ok": verdict is not None and error is None, "parse_problem": None if verdict else "no_verdict",
        "outcome": None, "error": error, "candidate_len": 10, "baseline_len": 12, "request_key": "k",
        "simulated": True, "source": "benchwright"} for judge, item, order, verdict, error in rows])


def test_parse_failures_are_counted_never_votes():
    members = _pairwise([
        ("j1", "i1", 1, "B>A", None), ("j2", "i1", 1, None, None), ("j3", "i1", 1, "B>A", None),    # 2 votes agree
        ("j1", "i2", 1, "B>A", None), ("j2", "i2", 1, None, None), ("j3", "i2", 1, "A>B", None),    # 2 votes split
        ("j1", "i3", 1, None, None), ("j2", "i3", 1, None, None), ("j3", "i3", 1, None, None),      # no vote
        ("j1", "i4", 1, None, "timeout"), ("j2", "i4", 1, None, "timeout"), ("j3", "i4", 1, None, "500"),  # all calls failed
        ("j1", "i5", 2, "A>>B", None), ("j2", "i5", 2, None, "timeout"), ("j3", "i5", 2, None, None),  # one vote
        ("x9", "i1", 1, "A>>B", None),                                                              # not a member
    ])
    rows = panels.pairwise_rows(THREE, members, PAIRWISE_COLUMNS).set_index("item_id")
    assert list(rows.columns) == [c for c in PAIRWISE_COLUMNS if c != "item_id"]
    assert set(rows["judge"]) == {"trio"}
    assert rows.loc["i1", "verdict"] == "B>A" and rows.loc["i1", "outcome"] == "B"
    assert rows.loc["i2", "verdict"] == "A=B" and rows.loc["i2", "outcome"] == "T"
    assert not rows.loc["i3", "parse_ok"] and rows.loc["i3", "parse_problem"] == panels.NO_MEMBER_VERDICT
    assert rows.loc["i3", "outcome"] == "Fail" and pd.isna(rows.loc["i3", "error"])
    # Every call failed: a failed call (error, no outcome), neither a loss nor a parse failure.
    assert rows.loc["i4", "error"] and pd.isna(rows.loc["i4", "outcome"]) and pd.isna(rows.loc["i4", "parse_problem"])
    # Order 2: the candidate is A, so A>>B is its much-better.
    assert rows.loc["i5", "verdict"] == "A>>B" and rows.loc["i5", "outcome"] == "MB"
    assert "1 votes" in rows.loc["i5", "raw_text"] and "j2: call failed" in rows.loc["i5", "raw_text"]
    assert "j3: unparsed" in rows.loc["i5", "raw_text"]


def test_scores_are_the_mean_of_the_parsed_members():
    members = pd.DataFrame([
        {"model": "m", "judge": j, "item_id": item, "raw_text": "...", "score_a": a, "score_b": b,
         "parse_ok": b is not None, "parse_problem": None, "error": None, "request_key": "k", "simulated": False,
         "source": "benchwright"}
        for j, item, a, b in [("j1", "i1", 5.0, 6.0), ("j2", "i1", 7.0, 8.0), ("j3", "i1", None, None),
                              ("j1", "i2", 4.0, None), ("j2", "i2", None, None), ("j3", "i2", None, None)]])
    rows = panels.score_rows(THREE, members, keys=["item_id"], scores=["score_a", "score_b"], parsed_score="score_b",
                             columns=VFS_COLUMNS).set_index("item_id")
    assert rows.loc["i1", "score_a"] == pytest.approx(6.0) and rows.loc["i1", "score_b"] == pytest.approx(7.0)
    assert bool(rows.loc["i1", "parse_ok"]) and not rows.loc["i1", "simulated"]
    assert not rows.loc["i2", "parse_ok"] and pd.isna(rows.loc["i2", "score_b"])
    assert rows.loc["i2", "parse_problem"] == panels.NO_MEMBER_VERDICT


def test_urs_final_and_criterion_scores_are_averaged_key_by_key():
    from benchwright.urs.steps import JUDGMENT_COLUMNS

    members = pd.DataFrame([
        {"model": "m", "judge": j, "item_id": "q1", "intent": "Leisure", "language": "en", "reference_model": "dataset",
         "raw_text": "...", "final_score": final, "criterion_scores": criteria, "parse_ok": final is not None,
         "parse_problem": None, "error": None, "request_key": "k", "simulated": True, "source": "benchwright"}
        for j, final, criteria in [("j1", 7, '{"Fun": 6, "Safety": 9}'), ("j2", 8, '{"Fun": 9}'), ("j3", None, None)]])
    row = panels.score_rows(THREE, members, keys=["item_id"], scores=["final_score"], parsed_score="final_score",
                            columns=JUDGMENT_COLUMNS, score_dicts=["criterion_scores"]).iloc[0]
    assert row["final_score"] == pytest.approx(7.5) and row["parse_ok"] and row["judge"] == "trio"
    assert row["criterion_scores"] == '{"Fun": 7.5, "Safety": 9.0}'  # Safety: the one member that gave it
    assert row["intent"] == "Leisure" and row["reference_model"] == "dataset"
    assert panels.mean_score_dicts([None, None]) is None


# --- agreement among members ---------------------------------------------------------------------------

def _cohen_by_definition(a, b):
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b)) / n
    expected = sum((a.count(k) / n) * (b.count(k) / n) for k in set(a) | set(b))
    return (observed - expected) / (1 - expected)


def test_member_agreement_per_pair_and_over_the_panel():
    # Four units, all parsed by j1 and j2; j3 failed on unit 4. By hand, j1 vs j2: p_o = 2/4,
    # p_e = .5·.5 (A>B) + .25·.5 (B>A) + .25·0 = .375 -> kappa = .125/.625 = 0.2.
    j1 = ["A>B", "A>B", "B>A", "A=B"]
    j2 = ["A>B", "B>A", "B>A", "A>B"]
    j3 = ["A>B", "A>B", "B>A", None]
    rows = [(j, f"i{k}", 1, v, None) for j, votes in (("j1", j1), ("j2", j2), ("j3", j3)) for k, v in enumerate(votes)]
    table = panels.member_agreement(THREE, _pairwise(rows), unit=["model", "item_id", "judge_order"])
    pair = table.set_index(["judge_a", "judge_b"])
    assert pair.loc[("j1", "j2"), "cohen_kappa"] == pytest.approx(0.2)
    assert pair.loc[("j1", "j2"), "cohen_kappa"] == pytest.approx(_cohen_by_definition(j1, j2))
    assert pair.loc[("j1", "j2"), "exact_agreement"] == pytest.approx(0.5)
    assert pair.loc[("j1", "j3"), "units"] == 3 and pair.loc[("j1", "j3"), "exact_agreement"] == pytest.approx(1.0)
    whole = pair.loc[(panels.ALL_MEMBERS, panels.ALL_MEMBERS)]
    # Units every member parsed: the first three. All equal on units 1 and 3.
    assert whole["units"] == 3 and whole["exact_agreement"] == pytest.approx(2 / 3)
    assert whole["member_parse_failures"] == 1 and whole["member_errors"] == 0
    # Fleiss by definition on those three units (3 raters): P_i = 1, 1/3, 1; shares A>B 5/9, B>A 4/9.
    p_bar, p_e = (1 + 1 / 3 + 1) / 3, (5 / 9) ** 2 + (4 / 9) ** 2
    assert whole["fleiss_kappa"] == pytest.approx((p_bar - p_e) / (1 - p_e))


def test_member_agreement_with_no_judgments_is_empty_not_an_error():
    table = panels.member_agreement(THREE, _pairwise([]).reindex(columns=PAIRWISE_COLUMNS), unit=["model", "item_id"])
    assert table["units"].tolist() == [0, 0, 0, 0] and table["fleiss_kappa"].isna().all()


# --- the registry file ----------------------------------------------------------------------------------

def test_shipped_panels_are_valid_and_name_shipped_judges():
    from benchwright.registry import load_registry

    judges, _ = load_registry(ROOT / "registry" / "judges.yaml", "judges")
    entries, problems = panels.load_panels(ROOT / "registry" / "panels.yaml", [j.slug for j in judges])
    assert problems == [] and entries and all(len(e.members) >= 2 for e in entries)


def test_bad_panels_are_refused_with_file_entry_and_line_and_spare_the_others(tmp_path):
    path = tmp_path / "panels.yaml"
    path.write_text("""
good:
  members: [j1, j2]
alone:
  members: [j1]
twice:
  members: [j1, j1]
stranger:
  members: [j1, nobody]
j1:
  members: [j2, j3]
odd-rule:
  members: [j1, j2]
  aggregate: unanimity
extra:
  members: [j1, j2]
  weights: [1, 2]
""", encoding="utf-8")
    entries, problems = panels.load_panels(path, ["j1", "j2", "j3"])
    assert [e.slug for e in entries] == ["good"] and entries[0].aggregate == "majority" and entries[0].display_name == "good"
    reasons = {p.entry: p.reason for p in problems}
    assert set(reasons) == {"alone", "twice", "stranger", "j1", "odd-rule", "extra"}
    assert "at least two" in reasons["alone"] and "listed twice" in reasons["twice"]
    assert "nobody" in reasons["stranger"] and "judge's slug" in reasons["j1"]
    assert "unanimity" in reasons["odd-rule"] and "weights" in reasons["extra"]
    assert all(p.line and "(line " in str(p) and p.file == str(path) for p in problems)
    assert panels.load_panels(tmp_path / "absent.yaml") == ([], [])
    path.write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(ValueError, match="panels.yaml"):
        panels.load_panels(path)


def test_a_panel_version_changes_with_its_members():
    one = PanelEntry(slug="p", display_name="P", members=("a", "b"))
    assert one.version != PanelEntry(slug="p", display_name="P", members=("a", "b", "c")).version


def test_the_field_rule_is_refused_with_its_new_name_and_the_rename_made_no_panel_stale(tmp_path):
    path = tmp_path / "panels.yaml"
    path.write_text("old:\n  members: [j1, j2]\n  rule: median\nnew:\n  members: [j1, j2]\n  aggregate: median\n",
                    encoding="utf-8")
    entries, [problem] = panels.load_panels(path, ["j1", "j2"])
    assert [e.slug for e in entries] == ["new"]
    assert (problem.entry, problem.field, problem.line) == ("old", "rule", 3)
    assert "aggregate: median" in problem.reason and "instead" in problem.reason
    # Versions pinned from before the rename (when the field was `rule`): the same panel hashes the same.
    assert THREE.version == "4bce4ddd1b4457a4"
    assert PanelEntry(slug="trio", display_name="Trio", members=("j1", "j2", "j3"),
                      aggregate="median").version == "2dd96038c8fa7244"


# --- aggregates mean and median -------------------------------------------------------------------------

@pytest.mark.parametrize(("votes", "median", "mean"), [
    (["A>>B", "A>B", "B>>A"], "A>B", "A=B"),         # positions -2, -1, 2: median -1; mean -1/3 -> 0
    (["A>>B", "A>>B", "B>A"], "A>>B", "A>B"),        # -2, -2, 1: median -2; mean -1
    (["A>B", "B>A"], "A=B", "A=B"),                  # -1, 1: both 0
    (["B>A", "B>>A"], "B>A", "B>A"),                 # 1, 2: 1.5, a half toward A=B
    (["A>B", "A>>B", "A>>B", "B>>A"], "A>B", "A>B"),  # -2,-2,-1,2: median -1.5, a half toward A=B; mean -0.75
    ([], None, None),
])
def test_mean_and_median_aggregates_read_the_verdicts_as_an_ordinal_scale(votes, median, mean):
    assert panels.aggregate_verdict("median", votes) == median
    assert panels.aggregate_verdict("mean", votes) == mean
    assert panels.aggregate_verdict("majority", votes) == majority_verdict(votes)


def test_the_median_aggregate_takes_the_median_of_scores_and_pairwise_votes(tmp_path):
    median_panel = PanelEntry(slug="trio", display_name="Trio", members=("j1", "j2", "j3"), aggregate="median")
    members = pd.DataFrame([
        {"model": "m", "judge": j, "item_id": "i1", "raw_text": "...", "score_a": a, "score_b": b,
         "parse_ok": True, "parse_problem": None, "error": None, "request_key": "k", "simulated": False,
         "source": "benchwright"} for j, a, b in [("j1", 1.0, 2.0), ("j2", 2.0, 3.0), ("j3", 9.0, 10.0)]])
    row = panels.score_rows(median_panel, members, keys=["item_id"], scores=["score_a", "score_b"],
                            parsed_score="score_b", columns=VFS_COLUMNS).iloc[0]
    assert (row["score_a"], row["score_b"]) == (2.0, 3.0)  # one extreme member does not move it
    assert row["raw_text"].startswith("median of 3")
    votes = _pairwise([("j1", "i1", 1, "B>>A", None), ("j2", "i1", 1, "B>A", None), ("j3", "i1", 1, "A>>B", None)])
    verdict = panels.pairwise_rows(median_panel, votes, PAIRWISE_COLUMNS).iloc[0]
    assert verdict["verdict"] == "B>A" and verdict["outcome"] == "B"
    assert panels.pairwise_rows(THREE, votes, PAIRWISE_COLUMNS).iloc[0]["verdict"] == "A=B"  # no majority
    path = tmp_path / "panels.yaml"
    path.write_text("p: {members: [a, b], aggregate: median}\nq: {members: [a, b], aggregate: mode}\n", encoding="utf-8")
    entries, problems = panels.load_panels(path)
    assert [e.aggregate for e in entries] == ["median"] and [p.field for p in problems] == ["aggregate"]
    # the version of a panel written before these aggregates existed is unchanged
    assert THREE.version == PanelEntry(slug="trio", display_name="Trio", members=("j1", "j2", "j3"),
                                       aggregate="majority").version


def test_the_panel_row_reports_its_effective_number_of_judges():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 5, size=200)
    copies = [(j, f"i{k}", 1, CANONICAL_VERDICTS[v], None) for j in ("j1", "j2", "j3") for k, v in enumerate(truth)]
    whole = panels.member_agreement(THREE, _pairwise(copies), unit=["model", "item_id", "judge_order"]).iloc[-1]
    assert whole["effective_judges"] == pytest.approx(1.0)  # three copies of one judge are one judge
    apart = [(j, f"i{k}", 1, CANONICAL_VERDICTS[int(v)], None) for j in ("j1", "j2", "j3")
             for k, v in enumerate(rng.integers(0, 5, size=200))]
    whole = panels.member_agreement(THREE, _pairwise(apart), unit=["model", "item_id", "judge_order"]).iloc[-1]
    assert whole["effective_judges"] == pytest.approx(3.0, abs=0.35)
