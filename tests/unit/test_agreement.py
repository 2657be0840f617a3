"""Judge–human agreement, swap consistency, kappa, MAE/consistency on the −2..+2 scale (benchwright.agreement)."""

import pandas as pd
import pytest

from benchwright import agreement
from benchwright.agreement import FIRST, SECOND, TIE


@pytest.mark.parametrize(("verdict", "candidate_position", "label", "value"), [
    ("A>>B", "B", FIRST, -2.0), ("A>B", "B", FIRST, -1.0), ("A=B", "B", TIE, 0.0), ("B>A", "B", SECOND, 1.0),
    ("B>>A", "B", SECOND, 2.0), ("A>>B", "A", SECOND, 2.0), ("B>A", "A", FIRST, -1.0), (None, "A", None, None),
])
def test_displayed_verdicts_read_back_into_original_positions(verdict, candidate_position, label, value):
    assert agreement.preferred(verdict, candidate_position) == label
    assert agreement.verdict_value(verdict, candidate_position) == value


def test_agreement_with_and_without_ties_and_failures_count_as_disagreement():
    human = [FIRST, SECOND, TIE, TIE, SECOND]
    judge = [FIRST, FIRST, TIE, SECOND, None]
    assert agreement.agreement(judge, human) == pytest.approx(2 / 5)
    # Without ties: items 3 and 4 (a tie on either side) drop out; the failure still disagrees.
    assert agreement.agreement(judge, human, ties=False) == pytest.approx(1 / 3)
    assert agreement.agreement([TIE], [TIE], ties=False) is None
    with pytest.raises(ValueError, match="not a preference label"):
        agreement.agreement(["A"], [FIRST])


def test_dual_agreement_both_orders_or_their_average():
    human = [FIRST, SECOND, TIE, SECOND]
    order1 = [FIRST, SECOND, TIE, FIRST]
    order2 = [FIRST, FIRST, TIE, None]
    assert agreement.dual_agreement(order1, order2, human, rule="both") == pytest.approx(2 / 4)
    assert agreement.dual_agreement(order1, order2, human, rule="average") == pytest.approx((3 / 4 + 2 / 4) / 2)


def test_swap_consistency_leaves_out_failures_unless_asked_to_match_them():
    order1 = [FIRST, SECOND, None, None, TIE]
    order2 = [FIRST, FIRST, None, SECOND, TIE]
    assert agreement.swap_consistency(order1, order2) == pytest.approx(2 / 3)
    # LLMBar's rule: a failure is a label, so two failures agree and one failure disagrees.
    assert agreement.swap_consistency(order1, order2, failures_match=True) == pytest.approx(3 / 5)


def test_cohen_kappa_against_a_hand_computed_table():
    # 2x2 table: both yes 20, both no 15, rater1 yes/rater2 no 5, rater1 no/rater2 yes 10 (n = 50).
    first = ["y"] * 20 + ["n"] * 15 + ["y"] * 5 + ["n"] * 10
    second = ["y"] * 20 + ["n"] * 15 + ["n"] * 5 + ["y"] * 10
    p_o = 35 / 50
    p_e = (25 / 50) * (30 / 50) + (25 / 50) * (20 / 50)
    assert agreement.cohen_kappa(first, second) == pytest.approx((p_o - p_e) / (1 - p_e))
    assert agreement.cohen_kappa(["a", "b", "a"], ["a", "b", "a"]) == pytest.approx(1.0)
    assert agreement.cohen_kappa(["a", "a"], ["a", "a"]) is None


def test_mae_and_consistency_on_the_five_point_scale():
    mae, consistency = agreement.mae_and_consistency([2, 0.5, -1, float("nan")], [0, 0, -1.5, 1])
    assert mae == pytest.approx((2 + 0.5 + 0.5) / 3)
    assert consistency == pytest.approx(2 / 3)


def test_human_human_mae_is_leave_one_out():
    values = pd.DataFrame({"item_id": ["q1", "q1", "q1", "q2", "q3", "q3"], "annotator": list("abcabc")[:6],
                           "value": [2.0, 0.0, 1.0, -2.0, -1.0, -1.0]})
    mae, consistency, comparisons = agreement.human_human_mae(values)
    # q1: 2 vs 0.5, 0 vs 1.5, 1 vs 1 -> 1.5, 1.5, 0; q2 has one person (skipped); q3: 0, 0.
    assert comparisons == 5
    assert mae == pytest.approx(3.0 / 5)
    assert consistency == pytest.approx(3 / 5)


def test_correlations_use_pearson_and_spearman():
    got = agreement.correlations([1, 2, 3, 4, float("nan")], [1, 4, 9, 16, 3])
    assert got["spearman"] == pytest.approx(1.0) and 0.9 < got["pearson"] < 1.0 and got["n"] == 4
    assert agreement.correlations([1, 1, 1], [1, 2, 3])["pearson"] is None


def test_agreement_table_per_group_and_overall():
    rows = []
    # item: (group, human label, order-1 verdict, order-2 verdict); order 2 shows the second response in A.
    items = {"1": ("g1", SECOND, "B>A", "A>B"), "2": ("g1", FIRST, "A>B", "A>B"), "3": ("g2", TIE, "A=B", None)}
    for item, (_, _, v1, v2) in items.items():
        for order, verdict in ((1, v1), (2, v2)):
            rows.append({"source": "s", "judge": "j", "item_id": item, "judge_order": order,
                         "candidate_position": "B" if order == 1 else "A", "verdict": verdict,
                         "parse_ok": verdict is not None})
    humans = pd.DataFrame([{"source": "s", "item_id": k, "item_group": g, "annotator": "h", "label": label,
                            "value": agreement.LABEL_VALUE[label]} for k, (g, label, _, _) in items.items()])
    table = agreement.agreement_table(pd.DataFrame(rows), humans).set_index("item_group")
    assert set(table.index) == {"Overall", "g1", "g2"}
    overall = table.loc["Overall"]
    # Order 1 agrees on all three; order 2 agrees on item 1 only (item 2's order 2 prefers the second, 3 failed).
    assert overall["agreement_order1"] == pytest.approx(1.0)
    assert overall["agreement"] == pytest.approx(4 / 6)
    assert overall["agreement_both"] == pytest.approx(1 / 3)
    assert overall["swap_consistency"] == pytest.approx(1 / 2)
    assert overall["judge_failures"] == 1
    assert table.loc["g1", "items"] == 2 and table.loc["g2", "agreement_both"] == 0.0
    # Dual values: item 1 (+1, +1) -> 1 vs 1; item 2 (-1, +1) -> 0 vs -1; item 3 has no order 2 (left out).
    assert overall["mae_dual"] == pytest.approx(0.5) and overall["consistency_dual"] == 1.0


def _fleiss_by_definition(ratings: list[list[str]]) -> float:
    """Fleiss' kappa written out from its definition with plain loops (items × raters' labels)."""
    categories = sorted({label for row in ratings for label in row})
    n, items = len(ratings[0]), len(ratings)
    agreement_per_item = []
    for row in ratings:
        counts = [row.count(c) for c in categories]
        agreement_per_item.append((sum(k * k for k in counts) - n) / (n * (n - 1)))
    shares = [sum(row.count(c) for row in ratings) / (items * n) for c in categories]
    p_bar, p_e = sum(agreement_per_item) / items, sum(s * s for s in shares)
    return (p_bar - p_e) / (1 - p_e)


def test_fleiss_kappa_against_a_hand_computed_table():
    # Three raters, four items: P_i = 1, 1/3, 1, 1/3 -> P̄ = 2/3; p_X = p_Y = 1/2 -> P_e = 1/2; kappa = 1/3.
    ratings = [["X", "X", "X"], ["X", "X", "Y"], ["Y", "Y", "Y"], ["X", "Y", "Y"]]
    counts = [[row.count("X"), row.count("Y")] for row in ratings]
    assert agreement.fleiss_kappa(counts) == pytest.approx(1 / 3)
    assert _fleiss_by_definition(ratings) == pytest.approx(1 / 3)
    # Five categories, four raters, uneven: the function equals the definition.
    ratings = [["a", "a", "b", "c"], ["d", "d", "d", "d"], ["a", "e", "e", "b"], ["c", "c", "c", "a"], ["b", "b", "a", "a"]]
    counts = [[row.count(c) for c in "abcde"] for row in ratings]
    assert agreement.fleiss_kappa(counts) == pytest.approx(_fleiss_by_definition(ratings))
    # Every rater on every item agreeing is 1; one category only is undefined; no item is undefined.
    assert agreement.fleiss_kappa([[3, 0], [0, 3]]) == pytest.approx(1.0)
    assert agreement.fleiss_kappa([[3, 0], [3, 0]]) is None
    assert agreement.fleiss_kappa([]) is None
    with pytest.raises(ValueError, match="same number of raters"):
        agreement.fleiss_kappa([[2, 0], [1, 2]])
