"""MMMT-IF preferences (benchwright/mmmt_if/README.md#autorater-and-preferences): the preference score, per-turn outcomes, win/tie/loss, battles for the
ratings, self-preference by model family."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import numpy as np
import pandas as pd

from benchwright import ratings
from benchwright.mmmt_if.prompts import AUTORATER_KEYS, PIF_WEIGHT, SCORE_COLUMNS

RATING_TABLE_COLUMNS = ["judge", "variant", "model", "rating", "rating_lower", "rating_upper", "rank", "judgments",
                        "wins", "ties", "losses", "at_bound", "rounds", "seed"]


def preference_score(scores: Mapping[str, float], pif: float, pif_weight: float = PIF_WEIGHT) -> float:
    """Weighted mean of the 8 criteria (weight 1 each) and PIF (weight ``pif_weight``).

    ``scores`` is keyed by the criteria names (``AUTORATER_KEYS``) or their column names.
    """
    keys = AUTORATER_KEYS if all(k in scores for k in AUTORATER_KEYS) else SCORE_COLUMNS
    missing = [k for k in keys if k not in scores]
    if missing:
        raise ValueError(f"scores lack {missing}")
    return (sum(float(scores[k]) for k in keys) + pif_weight * float(pif)) / (len(keys) + pif_weight)


def pairwise_outcome(score_a: float, score_b: float, tolerance: float = 1e-9) -> str:
    """'win', 'tie' or 'loss' for A."""
    if abs(score_a - score_b) <= tolerance:
        return "tie"
    return "win" if score_a > score_b else "loss"


OUTCOME_VERDICT = {"win": "A>B", "tie": "A=B", "loss": "B>A"}
PREFERENCE_COLUMNS = ["judge", "variant", "model_a", "model_b", "turns", "wins", "ties", "losses", "win_rate",
                      "unjudged"]


def pairwise_outcomes(preferences: pd.DataFrame) -> pd.DataFrame:
    """Per (judge, variant, turn) and model pair: the outcome for model_a (None when one is unscored).

    ``preferences`` has judge, variant, model, chat_id, turn and preference (NaN = not scored).
    """
    rows = []
    for (judge, variant, chat_id, turn), part in preferences.groupby(["judge", "variant", "chat_id", "turn"], sort=True):
        score = dict(zip(part["model"], part["preference"]))
        for model_a, model_b in combinations(sorted(score), 2):
            a, b = score[model_a], score[model_b]
            outcome = None if pd.isna(a) or pd.isna(b) else pairwise_outcome(float(a), float(b))
            rows.append({"judge": judge, "variant": variant, "chat_id": chat_id, "turn": int(turn),
                         "model_a": model_a, "model_b": model_b, "outcome": outcome})
    return pd.DataFrame(rows, columns=["judge", "variant", "chat_id", "turn", "model_a", "model_b", "outcome"])


def win_tie_loss(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Win/tie/loss counts per (judge, variant, model pair); win_rate counts a tie as half."""
    rows = []
    for (judge, variant, model_a, model_b), part in outcomes.groupby(["judge", "variant", "model_a", "model_b"], sort=True):
        counts = part["outcome"].value_counts()
        wins, ties, losses = (int(counts.get(k, 0)) for k in ("win", "tie", "loss"))
        judged = wins + ties + losses
        rows.append({"judge": judge, "variant": variant, "model_a": model_a, "model_b": model_b, "turns": judged,
                     "wins": wins, "ties": ties, "losses": losses,
                     "win_rate": (wins + 0.5 * ties) / judged if judged else np.nan,
                     "unjudged": int(part["outcome"].isna().sum())})
    return pd.DataFrame(rows, columns=PREFERENCE_COLUMNS)


def battles(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Judged outcomes as battles (model_a, model_b, canonical verdict, prompt) for benchwright.ratings.
    The prompt is the context (chat and turn): the bootstrap resamples contexts with all their battles."""
    judged = outcomes[outcomes["outcome"].notna()]
    return pd.DataFrame({"model_a": judged["model_a"].to_numpy(), "model_b": judged["model_b"].to_numpy(),
                         "verdict": judged["outcome"].map(OUTCOME_VERDICT).to_numpy(),
                         "prompt": (judged["chat_id"].astype(str) + "/" + judged["turn"].astype(str)).to_numpy()})


SELF_PREFERENCE_COLUMNS = ["judge", "model", "judge_family", "model_family", "same_family", "judgments",
                           "mean_score", "mean_score_other_judges", "difference"]


def rating_tables(outcomes: pd.DataFrame, rounds: int, seed: int) -> tuple[pd.DataFrame, list[str]]:
    """Bradley-Terry ratings (benchwright.ratings, `rounds` bootstrap rounds from `seed`) per judge and variant,
    from the pairwise outcomes. A judge and variant whose battles give no rating (none, or models not connected)
    is left out and said why: no rating rather than a guess."""
    frames, unrated = [], []
    for (judge, variant), part in outcomes.groupby(["judge", "variant"], sort=True):
        try:
            table = ratings.rating_table(battles(part), anchor=None, rounds=rounds, seed=seed)
        except ValueError as exc:
            unrated.append(f"no ratings for judge {judge}, variant {variant}: {exc}")
            continue
        frames.append(table.assign(judge=judge, variant=variant, rounds=rounds, seed=seed)[RATING_TABLE_COLUMNS])
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RATING_TABLE_COLUMNS)
    return table, unrated


def self_preference(judgments: pd.DataFrame, families: Mapping[str, str]) -> pd.DataFrame:
    """Mean of the 8 criteria a judge gives each model vs the mean the other judges give it.

    ``judgments`` has judge, model and the ``SCORE_COLUMNS`` (parsed rows only); ``families``
    maps every slug (models and judges) to its family (``benchwright.families.derive_family``).
    """
    if judgments.empty:
        return pd.DataFrame(columns=SELF_PREFERENCE_COLUMNS)
    df = judgments.copy()
    df["mean_score"] = df[list(SCORE_COLUMNS)].mean(axis=1)
    rows = []
    for (judge, model), part in df.groupby(["judge", "model"], sort=True):
        others = df[(df["model"] == model) & (df["judge"] != judge)]["mean_score"]
        mine = float(part["mean_score"].mean())
        other = float(others.mean()) if len(others) else float("nan")
        judge_family, model_family_ = families.get(judge, judge), families.get(model, model)
        rows.append({"judge": judge, "model": model, "judge_family": judge_family, "model_family": model_family_,
                     "same_family": judge_family == model_family_, "judgments": len(part), "mean_score": mine,
                     "mean_score_other_judges": other, "difference": mine - other})
    return pd.DataFrame(rows, columns=SELF_PREFERENCE_COLUMNS)


PREFERENCE_SCORE_COLUMNS = ["judge", "model", "variant", "chat_id", "turn", "sample_index", "pif", "criteria_mean",
                            "preference"]


def preference_scores(judgments: pd.DataFrame, responses: pd.DataFrame, pif_weight: float = PIF_WEIGHT) -> pd.DataFrame:
    """Preference score of every judged response: (8 criteria + pif_weight·PIF) / (8 + pif_weight).

    ``judgments``: rows of ``mmmt_if_autorater_judgments`` (failed calls and parse failures get a
    NaN preference: they take part in no comparison). ``responses``: scored responses with pif.
    """
    keys = ["model", "variant", "chat_id", "turn", "sample_index"]
    merged = judgments.merge(responses[keys + ["pif"]], on=keys, how="left")
    usable = merged["parse_ok"].astype(bool) & merged["error"].isna() & merged["pif"].notna()
    criteria = merged[list(SCORE_COLUMNS)].astype(float)
    merged["criteria_mean"] = criteria.mean(axis=1).where(usable)
    merged["preference"] = ((criteria.sum(axis=1) + pif_weight * merged["pif"]) / (len(SCORE_COLUMNS) + pif_weight)).where(usable)
    return merged[PREFERENCE_SCORE_COLUMNS]
