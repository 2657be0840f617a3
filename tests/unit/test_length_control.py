"""The length-controlled win rate: AlpacaEval 2's GLM, predicted with the length term at zero."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchwright import length_control


def synthetic(theta=-0.8, gamma=-1.6, beta=0.9, n=4000, seed=7):
    """Annotations drawn from the GLM itself: graded preferences (soft labels) and discrete ones mixed."""
    rng = np.random.default_rng(seed)
    baseline_len = rng.integers(200, 3000, n).astype(float)
    candidate_len = rng.integers(600, 4000, n).astype(float)  # a verbose candidate: length helps it
    difficulty = rng.normal(0.0, 1.5, n)
    p = expit(theta + gamma * length_control.length_term(baseline_len, candidate_len) + beta * difficulty)
    preference = 1.0 + np.where(rng.random(n) < 0.5, p, (rng.random(n) < p).astype(float))
    truth = 100.0 * float(np.mean(expit(theta + beta * difficulty)))
    return preference, baseline_len, candidate_len, difficulty, truth


def test_the_fit_recovers_the_coefficients_and_the_length_controlled_rate():
    preference, baseline_len, candidate_len, difficulty, truth = synthetic()
    result = length_control.length_controlled(preference, baseline_len, candidate_len, difficulty)
    assert result["model_coef"] == pytest.approx(-0.8, abs=0.15)
    assert result["length_coef"] == pytest.approx(-1.6, abs=0.2)
    assert result["difficulty_coef"] == pytest.approx(0.9, abs=0.1)
    assert result["lc_win_rate"] == pytest.approx(truth, abs=1.0)
    raw = 100.0 * float(np.mean(preference - 1.0))
    assert raw - truth > 3.0  # the length term really moves the raw win rate, so the test could fail


def test_a_given_length_slope_is_used_as_is_and_only_the_rest_is_fitted():
    preference, baseline_len, candidate_len, difficulty, truth = synthetic()
    result = length_control.length_controlled(preference, baseline_len, candidate_len, difficulty, length_coef=-1.6)
    assert result["length_coef"] == -1.6 and result["length_coef_from"] == "weights"
    assert result["lc_win_rate"] == pytest.approx(truth, abs=1.0)
    without = length_control.length_controlled(preference, baseline_len, candidate_len, None, length_coef=-1.6)
    assert without["difficulty_coef"] is None and not without["difficulty_used"]
    assert without["lc_win_rate"] == pytest.approx(100.0 * expit(without["model_coef"]))


def test_length_term_is_the_uncentred_standardized_difference_baseline_minus_candidate():
    term = length_control.length_term(np.array([100.0, 300.0, 200.0]), np.array([200.0, 100.0, 200.0]))
    delta = np.array([-100.0, 200.0, 0.0])
    assert term == pytest.approx(np.tanh(delta / np.std(delta, ddof=1)))


def test_missing_preferences_are_averaged_over_but_not_fitted_and_draws_are_half():
    preference, baseline_len, candidate_len, _, _ = synthetic(n=500)
    preference[:10] = np.nan
    preference[10:20] = 0.0  # the old draw encoding
    result = length_control.length_controlled(preference, baseline_len, candidate_len)
    assert (result["n_items"], result["n_fitted"]) == (500, 490)
    as_draws = preference.copy()
    as_draws[10:20] = 1.5
    assert length_control.length_controlled(as_draws, baseline_len, candidate_len)["lc_win_rate"] == pytest.approx(
        result["lc_win_rate"])


def test_table_uses_shared_weights_per_judge_and_baseline_and_the_baseline_is_fifty(tmp_path):
    preference, baseline_len, candidate_len, difficulty, _ = synthetic(n=300)
    rows = pd.DataFrame({"source": "alpaca_eval:j", "judge": "j", "model": "m", "baseline": "b",
                         "item_id": [f"i{k}" for k in range(300)], "preference": preference,
                         "baseline_len": baseline_len, "candidate_len": candidate_len})
    rows = pd.concat([rows, rows.assign(model="b", preference=1.5, candidate_len=baseline_len)])
    weights_file = tmp_path / "baseline_b.csv"
    weights_file.write_text(",np.tanh(std_delta_len),instruction_difficulty,not_gamed_baseline.astype(float)\n"
                            "m,-1.25,0.5,0.1\nb,0.0,0.0,0.0\n")
    weights = {("j", "b"): length_control.load_glm_weights(weights_file)}
    some_difficulty = {f"i{k}": float(difficulty[k]) for k in range(299)}  # one item lacks a difficulty
    table = length_control.lc_win_rates(rows, weights, some_difficulty).set_index("model")
    assert table.loc["b", "lc_win_rate"] == 50.0 and table.loc["b", "length_coef_from"] == "baseline"
    assert table.loc["m", "length_coef"] == -1.25 and table.loc["m", "length_coef_from"] == "weights"
    assert not table.loc["m", "difficulty_used"]  # a partial difficulty set is not used
    other_judge = length_control.lc_win_rates(rows.assign(judge="k"), weights).set_index("model")
    assert other_judge.loc["m", "length_coef_from"] == "fit"


def test_a_weights_file_of_another_layout_is_refused(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text(",a,b\nm,1,2\n")
    with pytest.raises(ValueError, match="length_controlled_v1"):
        length_control.load_glm_weights(path)
