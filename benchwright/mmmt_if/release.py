"""Our MMMT-IF metrics on the published release's rows (``benchwright.importers.mmmt_if_release``).

The release has one response per model and turn, scored by its own autorater, so a response is a
context with one sample (``variant`` 'standard', ``sample_index`` 0) and the release's autorater is one
judge, ``RELEASE_JUDGE``. Nothing is computed here that the metric modules do not already compute
for our own runs: PIF by turn with bounds (``pif``), ECDF dominance (``comparisons``), preference
score = (8 criteria + w·PIF)/(8 + w) with the file's PIF weight, win/tie/loss per turn and
Bradley–Terry ratings (``preferences``, ``benchwright.ratings``), and agreement of those outcomes
with the human choices (``alignment.preference_agreement``), plus the share of human choices that
agree with the PIF order (``alignment.human_alignment``).
"""

from __future__ import annotations

import pandas as pd

from benchwright import ratings
from benchwright.mmmt_if import alignment, comparisons, pif, preferences
from benchwright.mmmt_if.prompts import SCORE_COLUMNS, STANDARD

RELEASE_JUDGE = "release_autorater"
# The tables `release_metrics` returns, each for every source.
METRIC_TABLES = ["mmmt_if_release_pif_by_turn", "mmmt_if_release_dominance", "mmmt_if_release_preference_scores",
                 "mmmt_if_release_preferences", "mmmt_if_release_ratings", "mmmt_if_release_agreement"]
RATING_COLUMNS = ["model", "rating", "rating_lower", "rating_upper", "rank", "judgments", "wins", "ties", "losses",
                  "at_bound", "rounds", "seed"]


def as_responses(release_rows: pd.DataFrame) -> pd.DataFrame:
    """The release's rows in the shape of our scored responses (one sample per context)."""
    return release_rows.assign(variant=STANDARD, sample_index=0)


def preference_scores(release_rows: pd.DataFrame, pif_weight: float) -> pd.DataFrame:
    """judge, variant, model, chat_id, turn, preference: the release autorater's preference score per response."""
    scores = [preferences.preference_score({c: row[c] for c in SCORE_COLUMNS}, row["pif"], pif_weight)
              for _, row in release_rows.iterrows()]
    return as_responses(release_rows).assign(judge=RELEASE_JUDGE, preference=scores)[
        ["judge", "variant", "model", "chat_id", "turn", "preference"]]


def release_metrics(release_rows: pd.DataFrame, human: pd.DataFrame, pif_weight: float,
                    bootstrap_rounds: int = 1000, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Every metric table of one release (columns without ``source``; the caller adds it)."""
    responses = as_responses(release_rows)
    by_turn = pif.pif_by_turn(pif.contexts(responses)).drop(columns="variant")
    dominance = comparisons.dominance(responses).drop(columns="variant")
    scores = preference_scores(release_rows, pif_weight)
    outcomes = preferences.pairwise_outcomes(scores)
    win_tie_loss = preferences.win_tie_loss(outcomes).drop(columns=["judge", "variant"])
    rated = ratings.rating_table(preferences.battles(outcomes), anchor=None, rounds=bootstrap_rounds, seed=seed)
    agreement = alignment.preference_agreement(outcomes, human)
    human_for_pif = human.assign(variant=STANDARD, sample_index=0)
    with_pif = alignment.human_alignment(pd.DataFrame(), human_for_pif, responses)
    return {
        "mmmt_if_release_pif_by_turn": by_turn,
        "mmmt_if_release_dominance": dominance,
        "mmmt_if_release_preference_scores": scores.drop(columns="variant"),
        "mmmt_if_release_preferences": win_tie_loss,
        "mmmt_if_release_ratings": rated.assign(rounds=bootstrap_rounds, seed=seed)[RATING_COLUMNS],
        "mmmt_if_release_agreement": agreement.assign(  # the PIF order is compared over all pairs only
            human_agrees_with_pif=(agreement["model_a"] == "all").map(
                {True: float(with_pif["value"].iloc[0]) if len(with_pif) else None, False: None}),
            human_pif_pairs=(agreement["model_a"] == "all").map(
                {True: int(with_pif["n"].iloc[0]) if len(with_pif) else 0, False: None})),
    }
