"""Human-calibrated estimates: a few human labels and many judge labels, by prediction-powered inference.

The method is PPI++ (Angelopoulos, Duchi and Zrnic, "PPI++: Efficient Prediction-Powered Inference",
arXiv:2311.01453, 2023; PPI: Angelopoulos et al., Science 382, 2023) for a mean. People labelled n
items (Y), the judge labelled those and N more (Ŷ on the labelled items, Ŷᵤ on the N unlabelled ones):

    θ̂(λ) = λ · mean(Ŷᵤ) + mean(Y − λ Ŷ)

is unbiased for the people's mean for any fixed λ, however wrong the judge is: the second term
corrects the judge's bias with the human labels. Its standard error is

    se(λ)² = λ² · var(Ŷᵤ) / N + var(Y − λ Ŷ) / n,

and the 95 % interval θ̂ ± z₀.₉₇₅ · se. λ = 0 is the classical (human-only) interval; λ = 1 is plain PPI;
the power-tuned λ̂ = cov(Y, Ŷ) / ((1 + n/N) · var(Ŷ, Ŷᵤ pooled)), clipped to [0, 1], minimises the
variance, so the interval is never much wider than the human-only one and narrower the more the
judge tracks the people. Variances are taken as ``ppi-python`` (the authors' package) takes them
(numpy's default ddof = 0, the pooled judge variance with ddof = 1), so the figures equal that
package's ``ppi_mean_ci``; the package itself is not a dependency: it pulls numba, scikit-learn and
statsmodels (≈ 80 MB of wheels) for the one estimator we need.

The effective number of human labels: how many human labels alone would give an interval as narrow,
n · (se_human / se_calibrated)²; the judge adds that minus n.

What is estimated here is a win rate from pairwise labels: each label becomes the second side's
score, 1 if it won, ½ for a tie, 0 if it lost (the sign of the −2..+2 value, so strength does not
count); an item labelled by several people scores the mean of their scores; a judge that saw both
orders scores the mean of its usable orders. An item the judge gave no usable verdict on has no
judge value: the judge-only estimate leaves it out, and in PPI its Ŷ is ½ (no information), which
keeps the estimator unbiased because the same rule applies on both sides of the correction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchwright.agreement import judge_item_labels
from benchwright.human_pairwise import value_for_b
from benchwright.quality import between

LEVEL = 0.95
NO_VERDICT = 0.5  # Ŷ of an item the judge gave no usable verdict on


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its standard error and (1 − alpha) normal interval."""

    value: float
    se: float
    lower: float
    upper: float
    lam: float = 0.0  # the weight on the judge (0: human-only)


def _z(level: float) -> float:
    from scipy import stats

    return float(stats.norm.ppf(0.5 + level / 2))


def _interval(value: float, se: float, level: float, lam: float = 0.0) -> Estimate:
    half = _z(level) * se
    return Estimate(float(value), float(se), float(value - half), float(value + half), float(lam))


def classical_mean(y, level: float = LEVEL) -> Estimate:
    """The mean of ``y`` and its CLT interval (ddof 0, as ppi-python's ``classical_mean_ci``)."""
    y = np.asarray(y, dtype=float)
    if len(y) == 0:
        raise ValueError("no labels")
    return _interval(y.mean(), y.std() / np.sqrt(len(y)), level)


def power_tuned_lambda(y, yhat, yhat_unlabeled) -> float:
    """PPI++'s variance-minimising λ for a mean, clipped to [0, 1] (0 when the judge is constant)."""
    y, yhat, yhat_unlabeled = (np.asarray(a, dtype=float) for a in (y, yhat, yhat_unlabeled))
    n, big_n = len(y), len(yhat_unlabeled)
    if big_n == 0 or n < 2:
        return 0.0
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    pooled = float(np.var(np.concatenate([yhat, yhat_unlabeled]), ddof=1))
    if pooled <= 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / big_n) * pooled), 0.0, 1.0))


def ppi_mean(y, yhat, yhat_unlabeled, level: float = LEVEL, lam: float | None = None) -> Estimate:
    """PPI++ estimate of the mean of ``y`` (see the module docstring); ``lam=None`` tunes λ.

    Without unlabelled items the judge cannot add anything: λ is 0 and the result is the classical one.
    """
    y, yhat, yhat_unlabeled = (np.asarray(a, dtype=float) for a in (y, yhat, yhat_unlabeled))
    if len(y) == 0:
        raise ValueError("no human labels")
    if len(yhat) != len(y):
        raise ValueError(f"{len(y)} human labels but {len(yhat)} judge labels on them")
    if len(yhat_unlabeled) == 0:
        lam = 0.0
    elif lam is None:
        lam = power_tuned_lambda(y, yhat, yhat_unlabeled)
    rectifier = y - lam * yhat
    imputed = lam * yhat_unlabeled.mean() if len(yhat_unlabeled) else 0.0
    variance = rectifier.var() / len(y) + (lam ** 2 * yhat_unlabeled.var() / len(yhat_unlabeled)
                                           if len(yhat_unlabeled) else 0.0)
    return _interval(imputed + rectifier.mean(), np.sqrt(variance), level, lam)


def effective_labels(n: int, human: Estimate, calibrated: Estimate) -> float:
    """n · (se_human / se_calibrated)²: the human labels alone that would give the calibrated interval's width.

    n when both are exact (people all agree and λ = 0); NaN when only the calibrated one is exact.
    """
    if calibrated.se == 0:
        return float(n) if human.se == 0 else float("nan")
    return float(n * (human.se / calibrated.se) ** 2)


# --- win scores ---------------------------------------------------------------------------------

def win_score(values) -> np.ndarray:
    """The second side's score for −2..+2 values: 1 won, ½ tie, 0 lost (NaN stays NaN)."""
    values = np.asarray(values, dtype=float)
    return (np.sign(values) + 1) / 2


@dataclass(frozen=True)
class Labels:
    """Per-item scores of one estimand: ``human`` (items people labelled) and ``judge`` (items the judge saw,
    NaN where its verdict was unusable), both Series indexed by item id."""

    human: pd.Series
    judge: pd.Series


CALIBRATED_COLUMNS = [
    "benchmark", "source", "judge", "model", "opponent", "estimand",
    "n_human", "n_judge", "n_unlabeled", "judge_failures",
    "judge_only", "judge_only_lower", "judge_only_upper",
    "human_only", "human_only_lower", "human_only_upper",
    "calibrated", "calibrated_lower", "calibrated_upper",
    "ppi_lambda", "effective_n_human", "labels_added", "held_out_human_rate", "held_out_n",
]  # fmt: skip


def _bounded(value: float) -> float:
    return float(min(1.0, max(0.0, value)))


def estimate_row(labels: Labels, level: float = LEVEL) -> dict | None:
    """The judge-only, human-only and calibrated estimates of one estimand, or None when it has too few
    labels: fewer than two human-labelled items, or no judge verdict on any item.

    Items people labelled but the judge never saw are left out (no Ŷ to pair them with). Rates and bounds
    are clipped to [0, 1] for the table (the truth lies there); the standard errors are not.
    """
    judge = labels.judge
    human = labels.human[labels.human.index.isin(judge.index)].dropna()
    judged = judge.dropna()
    if len(human) < 2 or judged.empty:
        return None
    predictor = judge.fillna(NO_VERDICT)
    unlabeled = predictor[~predictor.index.isin(human.index)]
    y = human.to_numpy(dtype=float)
    yhat = predictor.reindex(human.index).to_numpy(dtype=float)
    judge_only = classical_mean(judged.to_numpy(dtype=float), level)
    human_only = classical_mean(y, level)
    calibrated = ppi_mean(y, yhat, unlabeled.to_numpy(dtype=float), level)
    effective = effective_labels(len(y), human_only, calibrated)
    row = {"n_human": len(y), "n_judge": len(judged), "n_unlabeled": len(unlabeled),
           "judge_failures": int(judge.isna().sum()), "ppi_lambda": calibrated.lam,
           "effective_n_human": effective, "labels_added": effective - len(y)}
    for name, figure in (("judge_only", judge_only), ("human_only", human_only), ("calibrated", calibrated)):
        row |= {name: _bounded(figure.value), f"{name}_lower": _bounded(figure.lower),
                f"{name}_upper": _bounded(figure.upper)}
    return row


def calibrated_table(estimands: list[tuple[dict, Labels]], level: float = LEVEL) -> pd.DataFrame:
    """One row per estimand with enough labels: its keys (benchmark, source, judge, model, opponent, estimand,
    held_out_*) followed by ``estimate_row``'s figures."""
    rows = []
    for keys, labels in estimands:
        figures = estimate_row(labels, level)
        if figures is not None:
            rows.append({"held_out_human_rate": None, "held_out_n": None, **keys, **figures})
    table = pd.DataFrame(rows, columns=CALIBRATED_COLUMNS)
    for column in CALIBRATED_COLUMNS[6:]:
        table[column] = table[column].astype("float64")
    for column in ("n_human", "n_judge", "n_unlabeled", "judge_failures"):
        table[column] = table[column].astype("int64")
    return table


# --- the estimands of each benchmark ------------------------------------------------------------

SECOND_WIN_RATE = "second_win_rate"        # imported pairs: people prefer the second response (ties ½)
CANDIDATE_WIN_RATE = "candidate_win_rate"  # Creation: the candidate against the item's baseline (ties ½)
PAIR_WIN_RATE = "model_win_rate"           # URS: `model` against `opponent` on the same question (ties ½)


def _judge_scores(item_labels: pd.DataFrame) -> pd.Series:
    """Per item, the mean win score of the judge's usable orders (value1, value2 on the −2..+2 scale)."""
    scores = pd.DataFrame({order: win_score(item_labels[f"value{order}"]) for order in (1, 2)
                           if f"value{order}" in item_labels}, index=item_labels.index)
    return scores.mean(axis=1, skipna=True)


def _human_scores(item_ids: pd.Series, values: pd.Series) -> pd.Series:
    """Per item, the mean win score of the people's decided labels (NaN values, 'cannot tell', left out)."""
    frame = pd.DataFrame({"item_id": item_ids.astype(str).to_numpy(), "score": win_score(values)}).dropna()
    return frame.groupby("item_id")["score"].mean()


def interop_scores(item_labels: pd.DataFrame, human_labels: pd.DataFrame) -> list[tuple[str, str, Labels]]:
    """Imported sets (Auto-J, LLMBar): per (source, judge), every human-labelled item's human and judge scores
    (the second response's side). ``item_labels``: ``agreement.judge_item_labels`` rows; ``human_labels``:
    ``interop_human_labels`` rows."""
    out = []
    for (source, judge), rows in item_labels.groupby(["source", "judge"], sort=True):
        people = human_labels[human_labels["source"] == source]
        human = _human_scores(people["item_id"], people["value"])
        judge_scores = pd.Series(_judge_scores(rows).to_numpy(), index=rows["item_id"].astype(str).to_numpy())
        human = human[human.index.isin(judge_scores.index)]
        if not human.empty:
            out.append((source, judge, Labels(human, judge_scores)))
    return out


def interop_estimands(item_labels: pd.DataFrame, human_labels: pd.DataFrame, sample: int,
                      seed: int) -> list[tuple[dict, Labels]]:
    """Imported sets: per (source, judge), the second response's human win rate (``interop_scores``).

    Every pair of these sets carries a human label, so the calibration is shown the way it is meant to be
    used: ``sample`` labelled items drawn at random (``seed``) keep their human labels, the others only the
    judge's; the rate over every labelled item is kept beside it (``held_out_human_rate``), the figure
    the interval should cover.
    """
    out = []
    for source, judge, labels in interop_scores(item_labels, human_labels):
        rng = np.random.default_rng(seed)
        chosen = np.sort(rng.choice(len(labels.human), size=min(sample, len(labels.human)), replace=False))
        keys = {"benchmark": "interop", "source": source, "judge": judge, "model": None, "opponent": None,
                "estimand": SECOND_WIN_RATE, "held_out_human_rate": float(labels.human.mean()),
                "held_out_n": len(labels.human)}
        out.append((keys, Labels(labels.human.iloc[chosen], labels.judge)))
    return out


def creation_estimands(judgments: pd.DataFrame, choices: pd.DataFrame) -> list[tuple[dict, Labels]]:
    """Creation: per (judge, candidate), the candidate's human win rate against the baseline.

    ``judgments``: our rows of ``creation_pairwise_judgments`` (both orders; errored calls have no value);
    ``choices``: Creation human choices whose model_a is the item's baseline, with ``value`` (−2..+2 from the
    candidate's side, NaN for 'cannot tell').
    """
    if judgments.empty or choices.empty:
        return []
    usable = judgments.assign(parse_ok=judgments["parse_ok"].astype(bool) & judgments["error"].isna(),
                              source=judgments["model"])  # judge_item_labels keys by source: here the candidate
    items = judge_item_labels(usable)
    out = []
    for (model, judge), rows in items.groupby(["source", "judge"], sort=True):
        own = choices[choices["model_b"] == model]
        if own.empty:
            continue
        judge_scores = pd.Series(_judge_scores(rows).to_numpy(), index=rows["item_id"].astype(str).to_numpy())
        keys = {"benchmark": "creation", "source": "benchwright", "judge": judge, "model": model,
                "opponent": "baseline", "estimand": CANDIDATE_WIN_RATE}
        out.append((keys, Labels(_human_scores(own["item_id"], own["value"]), judge_scores)))
    return out


def urs_estimands(judgments: pd.DataFrame, choices: pd.DataFrame) -> list[tuple[dict, Labels]]:
    """URS: per (judge, model pair), how often people prefer ``model`` (the later slug) to ``opponent``.

    The judge scores each answer against a reference (1–10); on a question it prefers the answer it scored
    higher (equal scores: a tie). ``judgments``: ``urs_judgments`` rows (model, judge, item_id, final_score,
    NULL when unusable); ``choices``: ``urs_human_pairwise`` rows with item_id, model_a, model_b, winner,
    strength.
    """
    choices = choices[choices["item_id"].notna() & (choices["winner"] != "undetermined")]
    if judgments.empty or choices.empty:
        return []
    strength = [None if pd.isna(s) else int(s) for s in choices["strength"]] if "strength" in choices \
        else [None] * len(choices)
    values = [value_for_b(w, s if s is not None else (0 if w == "tie" else 1))
              for w, s in zip(choices["winner"], strength)]
    # Orient every choice as (opponent, model) with model the later slug, its value from model's side.
    flip = (choices["model_a"] > choices["model_b"]).to_numpy()
    oriented = pd.DataFrame({
        "item_id": choices["item_id"].astype(str).to_numpy(),
        "opponent": np.where(flip, choices["model_b"], choices["model_a"]),
        "model": np.where(flip, choices["model_a"], choices["model_b"]),
        "value": np.where(flip, -np.asarray(values, dtype=float), np.asarray(values, dtype=float)),
    })
    scores = (judgments.assign(item_id=judgments["item_id"].astype(str))
              .groupby(["judge", "model", "item_id"])["final_score"].mean())
    out = []
    for judge in sorted(judgments["judge"].unique()):
        own = scores.loc[judge]
        for (opponent, model), pair in oriented.groupby(["opponent", "model"], sort=True):
            if model not in own.index.get_level_values(0) or opponent not in own.index.get_level_values(0):
                continue
            mine, theirs = own.loc[model], own.loc[opponent]
            both = mine.index.union(theirs.index)
            difference = mine.reindex(both) - theirs.reindex(both)
            keys = {"benchmark": "urs", "source": "benchwright", "judge": judge, "model": model,
                    "opponent": opponent, "estimand": PAIR_WIN_RATE}
            out.append((keys, Labels(_human_scores(pair["item_id"], pair["value"]),
                                     pd.Series(win_score(difference.to_numpy()), index=both))))
    return out


# great-expectations suite (benchwright.quality.validate_frame) for the table, run by checks/calibrated.py.
RATE_COLUMNS = [f"{name}{suffix}" for name in ("judge_only", "human_only", "calibrated")
                for suffix in ("", "_lower", "_upper")]
CALIBRATED_SUITE: list[dict] = [
    {"type": "columns_exist", "columns": CALIBRATED_COLUMNS},
    {"type": "column_values_in_set", "column": "benchmark", "values": ["creation", "urs", "interop"]},
    {"type": "column_values_in_set", "column": "estimand",
     "values": [SECOND_WIN_RATE, CANDIDATE_WIN_RATE, PAIR_WIN_RATE]},
    *(between(c, 0, 1, allow_null=False) for c in RATE_COLUMNS),
    between("held_out_human_rate", 0, 1),
    between("ppi_lambda", 0, 1, allow_null=False),
    between("n_human", 2, None, allow_null=False),
    *(between(c, 0, None, allow_null=False) for c in ("n_judge", "n_unlabeled", "judge_failures")),
    between("effective_n_human", 0, None),
    {"type": "columns_unique", "columns": ["benchmark", "source", "judge", "model", "opponent", "estimand"]},
]


# --- reproduction on fully labelled data (scripts/ppi_reproduction.py) ---------------------------

@dataclass(frozen=True)
class Coverage:
    """How the calibrated interval behaves when n of N fully labelled items keep their human label."""

    n: int
    rounds: int
    coverage: float          # share of rounds whose calibrated interval holds the full-data human rate
    human_coverage: float    # the same for the human-only interval
    width_ratio: float       # mean over rounds of calibrated width ÷ human-only width
    effective_n: float       # mean effective number of human labels


def coverage_study(y, yhat, n: int, rounds: int, seed: int, level: float = LEVEL) -> Coverage:
    """Draw n of the items without replacement ``rounds`` times; each time the n keep their human label
    (``y``) and the rest only the judge's (``yhat``). The target is the human rate over all items."""
    y, yhat = np.asarray(y, dtype=float), np.asarray(yhat, dtype=float)
    if not 2 <= n < len(y):
        raise ValueError(f"n must be from 2 to {len(y) - 1} (the items less one), not {n}")
    truth = y.mean()
    rng = np.random.default_rng(seed)
    covered, human_covered, ratios, effective = [], [], [], []
    for _ in range(rounds):
        labelled = np.zeros(len(y), dtype=bool)
        labelled[rng.choice(len(y), size=n, replace=False)] = True
        calibrated = ppi_mean(y[labelled], yhat[labelled], yhat[~labelled], level)
        human = classical_mean(y[labelled], level)
        covered.append(calibrated.lower <= truth <= calibrated.upper)
        human_covered.append(human.lower <= truth <= human.upper)
        ratios.append(calibrated.se / human.se if human.se > 0 else np.nan)
        effective.append(effective_labels(n, human, calibrated))
    return Coverage(n=n, rounds=rounds, coverage=float(np.mean(covered)), human_coverage=float(np.mean(human_covered)),
                    width_ratio=float(np.nanmean(ratios)), effective_n=float(np.nanmean(effective)))
