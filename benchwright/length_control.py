"""Length-controlled win rate (AlpacaEval 2's GLM, "length_controlled_v1"), our own numpy/scipy code.

The model, per candidate against one baseline, on each annotation i (facts from AlpacaEval's
``metrics/glm_winrate.py``; the code here is ours):

    P(candidate preferred on i) = σ(θ + γ·tanh(Δ_i / sd(Δ)) + β·d_i)

- y_i = preference − 1 in [0, 1] (a graded preference is a soft label; 0, the old draw, is 0.5);
  items without a preference are left out of the fit but kept in the average below.
- Δ_i = len(baseline's output) − len(candidate's output), in characters; sd is the sample standard
  deviation (ddof 1) over all of the candidate's annotations; Δ is not centred.
- d_i is the instruction's difficulty, one value per instruction shared by every model (AlpacaEval
  estimated it once over all its models and publishes it apart from the repository); β is the
  candidate's own slope on it. θ is the model term (there is no other intercept).
- The length-controlled win rate is 100 · mean_i σ(θ + β·d_i): every prediction with the length
  term set to zero, averaged over all of the candidate's items. The baseline against itself is 50.

Choices where we differ, and why:

- AlpacaEval fits γ, β and θ with an L1-penalized logistic regression whose strength is chosen by
  5-fold cross-validation, and adds the annotations of two "gamed" versions of the baseline (its
  verbose and concise prompts) at weight 0.1 each, which pulls γ toward a length slope shared with
  them. Those annotations are not in AlpacaEval's repository. We take γ from AlpacaEval's shared
  weights file (``weights/<annotator>/length_controlled_v1/baseline_<baseline>.csv``) when it has
  a row for the candidate, and fit it only otherwise; θ (and β when difficulties are given) are
  fitted by unpenalized maximum likelihood on the soft labels (scipy, L-BFGS-B).
- Without instruction difficulties the β·d_i term is left out (``difficulty_used`` false) and the
  figure is σ(θ): it can differ from AlpacaEval's by several points for a model with a large β
  (README, Interop).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from benchwright.numeric import one_blas_thread

# Column names of AlpacaEval's weights file, in the order of its formula.
WEIGHT_COLUMNS = {"np.tanh(std_delta_len)": "length", "instruction_difficulty": "difficulty",
                  "not_gamed_baseline.astype(float)": "model"}

LC_COLUMNS = ["source", "judge", "model", "baseline", "lc_win_rate", "model_coef", "length_coef", "difficulty_coef",
              "length_coef_from", "difficulty_used", "n_items", "n_fitted"]


def load_glm_weights(path: str | Path) -> pd.DataFrame:
    """AlpacaEval's shared GLM weights: one row per model, columns ``length``, ``difficulty``, ``model``."""
    weights = pd.read_csv(path, index_col=0)
    missing = [c for c in WEIGHT_COLUMNS if c not in weights.columns]
    if missing:
        raise ValueError(f"{path}: not an AlpacaEval length_controlled_v1 weights file (no column {missing})")
    return weights.rename(columns=WEIGHT_COLUMNS)[list(WEIGHT_COLUMNS.values())].astype(float)


def length_term(baseline_len: np.ndarray, candidate_len: np.ndarray) -> np.ndarray:
    """tanh of the length difference (baseline − candidate) divided by its sample standard deviation."""
    delta = np.asarray(baseline_len, dtype=float) - np.asarray(candidate_len, dtype=float)
    sd = np.std(delta, ddof=1) if len(delta) > 1 else 0.0
    return np.tanh(delta / sd) if sd > 0 else np.zeros_like(delta)


@one_blas_thread
def fit_soft_logistic(features: np.ndarray, labels: np.ndarray, offset: np.ndarray | None = None) -> np.ndarray:
    """Coefficients w maximizing Σ y·log σ(x·w + o) + (1 − y)·log σ(−x·w − o), y in [0, 1] (no penalty)."""
    from scipy.optimize import minimize  # imported where used: scipy costs every process's start
    from scipy.special import expit, log_expit

    offset = np.zeros(len(labels)) if offset is None else offset

    def negative_log_likelihood(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = features @ w + offset
        loss = -np.sum(labels * log_expit(z) + (1.0 - labels) * log_expit(-z))
        return float(loss), features.T @ (expit(z) - labels)

    result = minimize(negative_log_likelihood, np.zeros(features.shape[1]), jac=True, method="L-BFGS-B")
    if not result.success:
        raise ValueError(f"the GLM did not converge: {result.message}")
    return result.x


def length_controlled(preferences: np.ndarray, baseline_len: np.ndarray, candidate_len: np.ndarray,
                      difficulty: np.ndarray | None = None, length_coef: float | None = None) -> dict:
    """The GLM of the module docstring for one candidate's annotations.

    ``preferences``: AlpacaEval preferences (1..2, 0 = draw, NaN = none); ``difficulty``: d_i per
    item, or None to leave the term out; ``length_coef``: γ from the shared weights, or None to fit it.
    """
    from scipy.special import expit

    y = np.asarray(preferences, dtype=float)
    y = np.where(y == 0.0, 1.5, y) - 1.0
    fitted = ~np.isnan(y)
    tanh_len = length_term(baseline_len, candidate_len)
    columns = [np.ones(len(y))]  # the model term θ
    if length_coef is None:
        columns.append(tanh_len)
    if difficulty is not None:
        difficulty = np.asarray(difficulty, dtype=float)
        columns.append(difficulty)
    features = np.column_stack(columns)
    offset = np.zeros(len(y)) if length_coef is None else length_coef * tanh_len
    w = fit_soft_logistic(features[fitted], y[fitted], offset[fitted])
    theta = float(w[0])
    gamma = float(w[1]) if length_coef is None else float(length_coef)
    beta = float(w[-1]) if difficulty is not None else None
    no_length = theta + (beta * difficulty if beta is not None else np.zeros(len(y)))
    return {"lc_win_rate": 100.0 * float(np.mean(expit(no_length))), "model_coef": theta, "length_coef": gamma,
            "difficulty_coef": beta, "length_coef_from": "fit" if length_coef is None else "weights",
            "difficulty_used": difficulty is not None, "n_items": len(y), "n_fitted": int(fitted.sum())}


def lc_win_rates(rows: pd.DataFrame, weights: Mapping[tuple[str, str], pd.DataFrame] | None = None,
                 difficulty: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Length-controlled win rate per (source, judge, model, baseline).

    ``rows``: source, judge, model, baseline, item_id, preference, baseline_len, candidate_len (one
    per annotation). ``weights``: (judge, baseline) -> ``load_glm_weights`` frame. ``difficulty``:
    item_id -> d_i; used only when every item of a model has one (a partial set would change what
    is averaged).
    """
    weights = weights or {}
    out = []
    for (source, judge, model, baseline), part in rows.groupby(["source", "judge", "model", "baseline"], sort=True):
        key = {"source": source, "judge": judge, "model": model, "baseline": baseline}
        if model == baseline:
            out.append({**key, "lc_win_rate": 50.0, "model_coef": 0.0, "length_coef": 0.0, "difficulty_coef": None,
                        "length_coef_from": "baseline", "difficulty_used": False, "n_items": len(part),
                        "n_fitted": 0})
            continue
        if part[["baseline_len", "candidate_len"]].isna().any().any():
            raise ValueError(f"{source} / {model}: an annotation lacks an output, so its length is unknown")
        shared = weights.get((judge, baseline))
        gamma = None
        if shared is not None and model in shared.index:
            gamma = float(shared.loc[model, "length"] - (shared.loc[baseline, "length"] if baseline in shared.index else 0.0))
        d = None
        if difficulty is not None and part["item_id"].isin(list(difficulty)).all():
            d = part["item_id"].map(difficulty).to_numpy(dtype=float)
        out.append({**key, **length_controlled(part["preference"].to_numpy(dtype=float),
                                               part["baseline_len"].to_numpy(dtype=float),
                                               part["candidate_len"].to_numpy(dtype=float), d, gamma)})
    return pd.DataFrame(out, columns=LC_COLUMNS)
