"""GAP's player interaction model (benchwright/gap/README.md#player-interaction-model), fitted by maximum likelihood, cross-validated."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchwright.gap.logs import TIME_LIMIT_S
from benchwright.numeric import one_blas_thread

# Player interaction model. S = 1 when, on a tainted image, the player's mark is right about the
# answer (Wrong on a planted error, Correct on an honest answer): the question "revealed" the truth.

STRUCTURAL = ("alpha", "beta", "tau", "gamma", "lam")
PARAM_BOUNDS = (1e-3, 20.0)


def interaction_outcomes(marks: pd.DataFrame) -> pd.DataFrame:
    """Tainted marks as model rows: player, image, seconds, position, session length, S."""
    tainted = marks[marks["tainted"]].copy()
    # N = images shown in the session: the highest order seen in its log (tainted and untainted).
    tainted["session_images"] = tainted["session_id"].map(marks.groupby("session_id")["image_order"].max())
    tainted["revealed"] = ((tainted["player_mark"] == "wrong") == tainted["instructed_wrong"]).astype(int)
    return tainted[["player_id", "image_id", "seconds_taken", "image_order", "session_images", "revealed"]].reset_index(drop=True)


@dataclass
class InteractionModel:
    alpha: float
    beta: float
    tau: float
    gamma: float
    lam: float
    ability: dict[str, float]
    difficulty: dict[str, float]
    time_limit: float = TIME_LIMIT_S

    def predict(self, rows: pd.DataFrame) -> np.ndarray:
        a = rows["player_id"].map(self.ability).fillna(np.mean(list(self.ability.values())) if self.ability else 0.5)
        d = rows["image_id"].map(self.difficulty).fillna(np.mean(list(self.difficulty.values())) if self.difficulty else 0.5)
        z = _linear(self.alpha, self.beta, self.tau, self.gamma, self.lam, a.to_numpy(float), d.to_numpy(float), rows,
                    self.time_limit)[0]
        return 1.0 / (1.0 + np.exp(-z))

    def parameters(self) -> pd.DataFrame:
        """The fitted model as (parameter, value) rows: the structural ones, then each ability and difficulty."""
        return pd.DataFrame([{"parameter": name, "value": getattr(self, name)} for name in STRUCTURAL]
                            + [{"parameter": f"ability:{k}", "value": v} for k, v in self.ability.items()]
                            + [{"parameter": f"difficulty:{k}", "value": v} for k, v in self.difficulty.items()],
                            columns=["parameter", "value"])

    def untainted_above(self, marks: pd.DataFrame, theta: float) -> int:
        """How many untainted questions the model gives a success probability above ``theta``."""
        untainted = marks[~marks["tainted"]].copy()
        if untainted.empty:
            return 0
        untainted["session_images"] = untainted["session_id"].map(marks.groupby("session_id")["image_order"].max())
        return int((self.predict(untainted) > theta).sum())

    def update_ability(self, player: str, observed: float, expected: float, eta: float = 0.05) -> float:
        """Online step A_i ← A_i + η(observed − expected), kept in [0, 1]."""
        value = min(1.0, max(0.0, self.ability.get(player, 0.5) + eta * (observed - expected)))
        self.ability[player] = value
        return value


def _linear(alpha, beta, tau, gamma, lam, a, d, rows, time_limit):
    urgency = 1.0 - rows["seconds_taken"].to_numpy(float) / time_limit
    position = (rows["image_order"].to_numpy(float) - 1.0) / rows["session_images"].to_numpy(float)
    decay = np.exp(-lam * position)
    fatigue = 1.0 - decay
    return alpha * a - beta * d + tau * urgency - gamma * fatigue, urgency, fatigue, position, decay


@one_blas_thread
def fit_interaction_model(rows: pd.DataFrame, time_limit: float = TIME_LIMIT_S) -> InteractionModel:
    """Maximum likelihood with L-BFGS-B (analytic gradient); every parameter bounded."""
    from scipy.optimize import minimize

    players, p_index = np.unique(rows["player_id"].to_numpy(str), return_inverse=True)
    images, i_index = np.unique(rows["image_id"].to_numpy(str), return_inverse=True)
    s = rows["revealed"].to_numpy(float)
    n_p, n_i = len(players), len(images)

    def objective(theta):
        alpha, beta, tau, gamma, lam = theta[:5]
        a, d = theta[5:5 + n_p], theta[5 + n_p:]
        z, urgency, fatigue, position, decay = _linear(alpha, beta, tau, gamma, lam, a[p_index], d[i_index], rows, time_limit)
        log_p = -np.logaddexp(0.0, -z)
        log_q = -np.logaddexp(0.0, z)
        nll = -np.sum(s * log_p + (1 - s) * log_q)
        resid = -(s - np.exp(log_p))          # d nll / d z
        grad = np.empty_like(theta)
        grad[0] = resid @ a[p_index]
        grad[1] = -resid @ d[i_index]
        grad[2] = resid @ urgency
        grad[3] = -resid @ fatigue
        grad[4] = -resid @ (gamma * position * decay)
        grad[5:5 + n_p] = alpha * np.bincount(p_index, weights=resid, minlength=n_p)
        grad[5 + n_p:] = -beta * np.bincount(i_index, weights=resid, minlength=n_i)
        return nll, grad

    start = np.concatenate([[1.0] * 5, [0.5] * n_p, [0.5] * n_i])
    bounds = [PARAM_BOUNDS] * 5 + [(0.0, 1.0)] * (n_p + n_i)
    result = minimize(objective, start, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": 2000})
    t = result.x
    return InteractionModel(*map(float, t[:5]), ability=dict(zip(players, map(float, t[5:5 + n_p]))),
                            difficulty=dict(zip(images, map(float, t[5 + n_p:]))), time_limit=time_limit)


def roc_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve via the rank-sum (Mann–Whitney) identity; NaN with one class only."""
    from scipy.stats import rankdata

    labels = np.asarray(labels, dtype=bool)
    n_pos, n_neg = labels.sum(), (~labels).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(scores)
    return float((ranks[labels].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def calibration_table(labels: np.ndarray, predicted: np.ndarray, bins: int = 10) -> pd.DataFrame:
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(predicted, edges[1:-1]), 0, bins - 1)
    frame = pd.DataFrame({"bin": which, "predicted": predicted, "observed": np.asarray(labels, float)})
    table = frame.groupby("bin").agg(n=("observed", "size"), mean_predicted=("predicted", "mean"),
                                     observed_rate=("observed", "mean")).reset_index()
    table["bin_low"], table["bin_high"] = edges[table["bin"]], edges[table["bin"] + 1]
    return table[["bin", "bin_low", "bin_high", "n", "mean_predicted", "observed_rate"]]


@one_blas_thread
def cross_validate(rows: pd.DataFrame, folds: int = 5, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """k-fold CV (seeded row shuffle): per-fold AUC and log loss, plus out-of-fold predictions."""
    order = np.random.default_rng(seed).permutation(len(rows))
    out_of_fold = np.full(len(rows), np.nan)
    results = []
    for k, test in enumerate(np.array_split(order, folds)):
        train = np.setdiff1d(order, test)
        model = fit_interaction_model(rows.iloc[train])
        pred = model.predict(rows.iloc[test])
        out_of_fold[test] = pred
        y = rows["revealed"].to_numpy()[test]
        clipped = np.clip(pred, 1e-9, 1 - 1e-9)
        results.append({"fold": k, "n": len(test), "auc": roc_auc(y, pred),
                        "log_loss": float(-np.mean(y * np.log(clipped) + (1 - y) * np.log(1 - clipped)))})
    return pd.DataFrame(results), out_of_fold
