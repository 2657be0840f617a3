"""MMMT-IF model comparisons (benchwright/mmmt_if/README.md#comparing-models): empirical CDFs, stochastic dominance, one-sided Wilcoxon tests,
the instructions-appended uplift."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

import numpy as np
import pandas as pd

from benchwright.mmmt_if.prompts import APPENDED, STANDARD

def ecdf(responses: pd.DataFrame) -> pd.DataFrame:
    """Empirical CDF of the response PIF per (model, variant, turn): one row per distinct value."""
    rows = []
    scored = responses[responses["pif"].notna()]
    for (model, variant, turn), part in scored.groupby(["model", "variant", "turn"], sort=True):
        values = np.sort(part["pif"].to_numpy(dtype=float))
        distinct = np.unique(values)
        cdf = np.searchsorted(values, distinct, side="right") / len(values)
        rows.extend({"model": model, "variant": variant, "turn": int(turn), "pif_value": float(v),
                     "cdf": float(c), "n": len(values)} for v, c in zip(distinct, cdf))
    return pd.DataFrame(rows, columns=["model", "variant", "turn", "pif_value", "cdf", "n"])


def dominates(values_a: np.ndarray, values_b: np.ndarray) -> bool:
    """Does A weakly first-order stochastically dominate B: F_A(x) ≤ F_B(x) for every x?"""
    a, b = np.sort(values_a), np.sort(values_b)
    points = np.union1d(a, b)
    cdf_a = np.searchsorted(a, points, side="right") / len(a)
    cdf_b = np.searchsorted(b, points, side="right") / len(b)
    return bool(np.all(cdf_a <= cdf_b + 1e-12))


DOMINANCE_COLUMNS = ["variant", "model_a", "model_b", "turns", "turns_a_dominates", "turns_b_dominates",
                     "a_dominates_every_turn", "b_dominates_every_turn", "verdict"]


def dominance(responses: pd.DataFrame) -> pd.DataFrame:
    """Per model pair and variant: at how many turns each ECDF dominates, and the verdict."""
    scored = responses[responses["pif"].notna()]
    rows = []
    for variant, part in scored.groupby("variant", sort=True):
        by_model = {m: dict(iter(g.groupby("turn")["pif"])) for m, g in part.groupby("model")}
        for model_a, model_b in combinations(sorted(by_model), 2):
            turns = sorted(set(by_model[model_a]) & set(by_model[model_b]))
            a_wins = [dominates(by_model[model_a][t].to_numpy(), by_model[model_b][t].to_numpy()) for t in turns]
            b_wins = [dominates(by_model[model_b][t].to_numpy(), by_model[model_a][t].to_numpy()) for t in turns]
            a_all, b_all = bool(turns) and all(a_wins), bool(turns) and all(b_wins)
            verdict = ("equal" if a_all and b_all else f"{model_a} dominates" if a_all
                       else f"{model_b} dominates" if b_all else "no dominance")
            rows.append({"variant": variant, "model_a": model_a, "model_b": model_b, "turns": len(turns),
                         "turns_a_dominates": sum(a_wins), "turns_b_dominates": sum(b_wins),
                         "a_dominates_every_turn": a_all, "b_dominates_every_turn": b_all, "verdict": verdict})
    return pd.DataFrame(rows, columns=DOMINANCE_COLUMNS)


# scipy's `wilcoxon(method="auto")` (1.17) picks, by the differences d: the normal approximation above 50 pairs;
# the exact null distribution when no |d| ties and none is zero; with ties or zeros, a permutation test over all
# 2^n sign flips up to 13 pairs, else the normal approximation. We choose the same way and name the choice. Its
# permutation test is exhaustive, so the p-value is a count over the flips; scipy runs it through the generic
# `permutation_test` (≈ 0.5–2 s per call at 12–13 pairs, hours over a hundred models' pairs), we count the same
# flips at once with one matrix product (FLIP_LIMIT = 13: at most 8,192 flips).
APPROXIMATION_ABOVE = 50
FLIP_LIMIT = 13
EXACT, ASYMPTOTIC, SIGN_FLIPS = "exact", "asymptotic", "all sign flips"


@lru_cache(maxsize=None)
def _sign_flips(count: int) -> np.ndarray:
    """Every subset of `count` observations as a 0/1 matrix (2^count rows): the ones that keep a positive sign."""
    return ((np.arange(2 ** count)[:, None] >> np.arange(count)) & 1).astype(float)


def wilcoxon_method(diff: np.ndarray) -> str:
    """The test scipy's method="auto" runs on these paired differences (see the note above)."""
    if len(diff) > APPROXIMATION_ABOVE:
        return ASYMPTOTIC
    nonzero = np.abs(diff[diff != 0])
    if len(nonzero) == len(diff) and len(np.unique(nonzero)) == len(nonzero):
        return EXACT
    return SIGN_FLIPS if len(diff) <= FLIP_LIMIT else ASYMPTOTIC


def _sign_flip_pvalues(diff: np.ndarray) -> tuple[float, float]:
    """One-sided p-values (greater, less) of the signed-rank sum over every sign flip of the non-zero differences
    (zeros have no sign: flipping them changes nothing, so they only repeat each outcome)."""
    from scipy import stats

    nonzero = diff[diff != 0]
    ranks = stats.rankdata(np.abs(nonzero))  # average ranks: multiples of 0.5, summed exactly in floating point
    observed = ranks[nonzero > 0].sum()
    null = _sign_flips(len(nonzero)) @ ranks
    return float(np.mean(null >= observed - 1e-9)), float(np.mean(null <= observed + 1e-9))


def wilcoxon_one_sided(x: Sequence[float], y: Sequence[float]) -> tuple[float, float, int, str | None]:
    """(p for x > y, p for x < y, non-zero pairs, method): paired one-sided Wilcoxon signed-rank tests, with scipy's
    p-values for the method its method="auto" chooses (None when no pair differs: no test)."""
    diff = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    nonzero = int(np.sum(np.abs(diff) > 1e-12))
    if nonzero == 0:
        return float("nan"), float("nan"), 0, None
    method = wilcoxon_method(diff)
    if method == SIGN_FLIPS:
        greater, less = _sign_flip_pvalues(diff)
    else:
        from scipy import stats

        greater = stats.wilcoxon(diff, alternative="greater", zero_method="wilcox", method=method).pvalue
        less = stats.wilcoxon(diff, alternative="less", zero_method="wilcox", method=method).pvalue
    return float(greater), float(less), nonzero, method


WILCOXON_COLUMNS = ["variant", "model_a", "model_b", "pairs", "nonzero_pairs", "mean_difference",
                    "p_a_greater", "p_b_greater", "method"]


def wilcoxon_pairs(context_df: pd.DataFrame) -> pd.DataFrame:
    """One-sided Wilcoxon signed-rank p-values on paired context PIFs, per model pair and variant, with the
    method of each pair's test."""
    rows = []
    scored = context_df[context_df["pif"].notna()]
    for variant, part in scored.groupby("variant", sort=True):
        wide = part.pivot_table(index=["chat_id", "turn"], columns="model", values="pif")
        models, values = list(wide.columns), wide.to_numpy(dtype=float)  # numpy per pair: 4,950 pairs at 100 models
        present = ~np.isnan(values)
        for i, j in combinations(range(len(models)), 2):
            both = present[:, i] & present[:, j]
            a, b = values[both, i], values[both, j]
            p_greater, p_less, nonzero, method = wilcoxon_one_sided(a, b)
            rows.append({"variant": variant, "model_a": models[i], "model_b": models[j], "pairs": int(both.sum()),
                         "nonzero_pairs": nonzero, "mean_difference": float((a - b).mean()) if len(a) else np.nan,
                         "p_a_greater": p_greater, "p_b_greater": p_less, "method": method})
    return pd.DataFrame(rows, columns=WILCOXON_COLUMNS)


UPLIFT_COLUMNS = ["model", "pif_standard", "pif_appended", "uplift", "pif_n_n_standard", "pif_n_n_appended",
                  "uplift_n_n", "pairs", "p_appended_greater"]


def appended_uplift(context_df: pd.DataFrame, summary_df: pd.DataFrame) -> pd.DataFrame:
    """Per model: PIF and PIF-N-N with and without the appended instructions, and the paired test."""
    rows = []
    table = summary_df.set_index(["model", "variant"])
    for model in sorted(set(context_df["model"])):
        if (model, STANDARD) not in table.index or (model, APPENDED) not in table.index:
            continue
        part = context_df[(context_df["model"] == model) & context_df["pif"].notna()]
        wide = part.pivot_table(index=["chat_id", "turn"], columns="variant", values="pif").dropna()
        p_greater = wilcoxon_one_sided(wide[APPENDED], wide[STANDARD])[0] if len(wide) else float("nan")
        standard, appended = table.loc[(model, STANDARD)], table.loc[(model, APPENDED)]
        rows.append({"model": model, "pif_standard": standard["pif"], "pif_appended": appended["pif"],
                     "uplift": appended["pif"] - standard["pif"], "pif_n_n_standard": standard["pif_n_n"],
                     "pif_n_n_appended": appended["pif_n_n"], "uplift_n_n": appended["pif_n_n"] - standard["pif_n_n"],
                     "pairs": len(wide), "p_appended_greater": p_greater})
    return pd.DataFrame(rows, columns=UPLIFT_COLUMNS)
