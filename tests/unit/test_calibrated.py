"""PPI++ for a mean (benchwright.calibrated) against closed forms and simulated coverage, and the estimands."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchwright import calibrated as c

Z = stats.norm.ppf(0.975)


def test_lambda_zero_is_the_classical_interval_and_ignores_the_judge():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 40).astype(float)
    yhat, unlabeled = rng.random(40), rng.random(300)
    ppi = c.ppi_mean(y, yhat, unlabeled, lam=0.0)
    half = Z * y.std() / np.sqrt(len(y))
    assert (ppi.value, ppi.lower, ppi.upper) == pytest.approx((y.mean(), y.mean() - half, y.mean() + half))
    classical = c.classical_mean(y)
    assert (classical.lower, classical.upper) == pytest.approx((ppi.lower, ppi.upper))


def test_lambda_one_is_plain_ppi_by_its_closed_form():
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.5])
    yhat = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    unlabeled = np.array([1.0, 1.0, 0.0, 0.5, 1.0, 0.0, 1.0, 1.0])
    ppi = c.ppi_mean(y, yhat, unlabeled, lam=1.0)
    rectifier = y - yhat  # 0, 0, 1, 0, -0.5
    assert ppi.value == pytest.approx(unlabeled.mean() + rectifier.mean())
    se = np.sqrt(unlabeled.var() / len(unlabeled) + rectifier.var() / len(y))
    assert ppi.se == pytest.approx(se) and ppi.upper - ppi.lower == pytest.approx(2 * Z * se)


def test_tuned_lambda_is_the_variance_minimiser_clipped_to_zero_one():
    rng = np.random.default_rng(2)
    y, unseen = rng.random(60), rng.random(500)  # the unlabelled items' human scores, never shown
    yhat, unlabeled = y + rng.normal(0, 0.3, 60), unseen + rng.normal(0, 0.3, 500)
    lam = c.power_tuned_lambda(y, yhat, unlabeled)
    expected = np.mean((y - y.mean()) * (yhat - yhat.mean())) / (
        (1 + 60 / 500) * np.var(np.concatenate([yhat, unlabeled]), ddof=1))
    assert lam == pytest.approx(min(1.0, max(0.0, expected))) and 0 < lam <= 1
    # A judge that says the opposite of people is not used the wrong way round, and a constant one not at all.
    assert c.power_tuned_lambda(y, -yhat, -unlabeled) == 0.0
    assert c.power_tuned_lambda(y, np.ones(60), np.ones(500)) == 0.0
    # The tuned λ's interval is the narrowest of a grid of λ (up to the pooled-variance approximation).
    widths = {grid: c.ppi_mean(y, yhat, unlabeled, lam=grid).se for grid in np.linspace(0, 1, 21)}
    assert c.ppi_mean(y, yhat, unlabeled).se <= min(widths.values()) * 1.01


def test_without_unlabelled_items_the_judge_adds_nothing():
    y, yhat = np.array([1.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])
    ppi = c.ppi_mean(y, yhat, np.array([]))
    assert ppi.lam == 0.0 and ppi.value == pytest.approx(y.mean())
    assert c.effective_labels(3, c.classical_mean(y), ppi) == pytest.approx(3.0)


def _synthetic(rng, n_total, agreement, bias):
    """People's win scores and a judge that agrees with them on a share of items and otherwise says 'second',
    shifted by ``bias``: the judge alone is off by construction."""
    y = (rng.random(n_total) < 0.4).astype(float)
    agrees = rng.random(n_total) < agreement
    yhat = np.where(agrees, y, 1.0)
    return y, np.clip(yhat + bias, 0, 1)


def test_coverage_on_synthetic_data_holds_while_a_biased_judge_alone_misses():
    rng = np.random.default_rng(3)
    covered, judge_covered, ratios = [], [], []
    for _ in range(400):
        y, yhat = _synthetic(rng, 1100, agreement=0.8, bias=0.1)
        truth_mean = 0.4  # the population's human rate
        labelled = np.zeros(len(y), dtype=bool)
        labelled[:100] = True
        ppi = c.ppi_mean(y[labelled], yhat[labelled], yhat[~labelled])
        human = c.classical_mean(y[labelled])
        judge = c.classical_mean(yhat)
        covered.append(ppi.lower <= truth_mean <= ppi.upper)
        judge_covered.append(judge.lower <= truth_mean <= judge.upper)
        ratios.append(ppi.se / human.se)
    assert 0.92 <= np.mean(covered) <= 0.98
    assert np.mean(judge_covered) < 0.05
    assert np.mean(ratios) < 0.8


def test_coverage_study_counts_the_full_data_rate_and_refuses_impossible_sizes():
    rng = np.random.default_rng(4)
    y, yhat = _synthetic(rng, 600, agreement=0.9, bias=0.0)
    result = c.coverage_study(y, yhat, n=100, rounds=200, seed=0)
    assert result.coverage >= 0.9 and result.width_ratio < 1 and result.effective_n > 100
    assert c.coverage_study(y, yhat, n=100, rounds=200, seed=0) == result  # the seed fixes the draws
    with pytest.raises(ValueError):
        c.coverage_study(y, yhat, n=600, rounds=1, seed=0)


def test_estimate_row_fills_failures_with_a_half_and_needs_two_human_labels():
    judge = pd.Series([1.0, 0.0, np.nan, 1.0, 0.0, 1.0], index=list("abcdef"))
    human = pd.Series([1.0, 0.0, 1.0], index=list("abc"))
    row = c.estimate_row(c.Labels(human, judge))
    assert (row["n_human"], row["n_judge"], row["n_unlabeled"], row["judge_failures"]) == (3, 5, 3, 1)
    assert row["judge_only"] == pytest.approx(3 / 5)  # the failure left out
    expected = c.ppi_mean([1.0, 0.0, 1.0], [1.0, 0.0, 0.5], [1.0, 0.0, 1.0])
    assert row["calibrated"] == pytest.approx(min(1.0, expected.value))
    assert row["labels_added"] == pytest.approx(row["effective_n_human"] - 3)
    assert c.estimate_row(c.Labels(human.iloc[:1], judge)) is None
    # A human label on an item the judge never saw has no pair: it is left out.
    assert c.estimate_row(c.Labels(pd.Series([1.0, 0.0], index=["a", "z"]), judge)) is None


def test_urs_pairs_are_oriented_by_slug_and_the_judge_prefers_the_higher_score():
    judgments = pd.DataFrame({
        "judge": "j", "model": ["m-a"] * 4 + ["m-b"] * 4, "item_id": ["1", "2", "3", "4"] * 2,
        "final_score": [5, 5, 8, np.nan, 7, 5, 2, 6]})
    # Written once each way round: people prefer m-b on item 1 and 2 (tie on 3 counts ½).
    choices = pd.DataFrame({"item_id": ["1", "2", "3"], "model_a": ["m-a", "m-b", "m-a"],
                            "model_b": ["m-b", "m-a", "m-b"], "winner": ["B", "A", "tie"], "strength": [1, 2, 0]})
    (keys, labels), = c.urs_estimands(judgments, choices)
    assert (keys["model"], keys["opponent"]) == ("m-b", "m-a")
    assert labels.human.to_dict() == {"1": 1.0, "2": 1.0, "3": 0.5}
    assert labels.judge.to_dict() == pytest.approx({"1": 1.0, "2": 0.5, "3": 0.0, "4": np.nan}, nan_ok=True)


def test_creation_scores_the_candidate_from_both_orders():
    judgments = pd.DataFrame({
        "model": "cand", "judge": "j", "item_id": ["1", "1", "2", "2", "3", "3"], "judge_order": [1, 2] * 3,
        "candidate_position": ["B", "A"] * 3, "verdict": ["B>A", "B>A", "A>>B", "B>A", None, "A=B"],
        "parse_ok": [True, True, True, True, False, True], "error": [None] * 6})
    choices = pd.DataFrame({"item_id": ["1", "1", "2"], "model_b": "cand", "value": [2.0, -1.0, -1.0]})
    (keys, labels), = c.creation_estimands(judgments, choices)
    assert keys["estimand"] == c.CANDIDATE_WIN_RATE and keys["model"] == "cand"
    # Item 1: order 1 says the candidate (B) won, order 2 that B, the baseline, won: ½. Item 2: the baseline in
    # both orders (strength does not count). Item 3: only the tie parsed.
    assert labels.judge.to_dict() == pytest.approx({"1": 0.5, "2": 0.0, "3": 0.5})
    assert labels.human.to_dict() == {"1": 0.5, "2": 0.0}


def test_the_table_keeps_only_estimands_with_enough_labels_and_clips_to_rates():
    judge = pd.Series([1.0, 1.0, 1.0, 0.0], index=list("abcd"))
    keys = {"benchmark": "urs", "source": "benchwright", "judge": "j", "model": "m", "opponent": "o",
            "estimand": c.PAIR_WIN_RATE}
    table = c.calibrated_table([(keys, c.Labels(pd.Series([1.0, 1.0], index=list("ab")), judge)),
                                ({**keys, "model": "n"}, c.Labels(pd.Series([1.0], index=["a"]), judge))])
    assert list(table.columns) == c.CALIBRATED_COLUMNS and table["model"].tolist() == ["m"]
    rates = table[c.RATE_COLUMNS].to_numpy()
    assert ((rates >= 0) & (rates <= 1)).all()
    for name in ("judge_only", "human_only", "calibrated"):
        assert (table[f"{name}_lower"] <= table[name]).all() and (table[name] <= table[f"{name}_upper"]).all()
