"""URS metrics (benchwright/urs/README.md#scoring and the sections after it): leaderboard, criterion means, cross-validation grid, rating bias, alignment with
users' satisfaction and with people's pairwise choices (Bradley-Terry)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping

import pandas as pd

from benchwright.agreement import pearson
from benchwright.urs.intents import FINAL, REFERENCE_SCORE

# Under sql/ (Warehouse.query_file): what the assets run in DuckDB, the same rows as leaderboard() and
# criterion_means() here, the reference (tests/integration/test_metrics_sql.py).
LEADERBOARD_SQL = "urs/queries/leaderboard.sql"
CRITERION_MEANS_SQL = "urs/queries/criterion_means.sql"


ALL = "all"

LEADERBOARD_COLUMNS = ["judge", "model", "intent", "language", "final_score", "n", "parse_failures"]
CRITERION_COLUMNS = ["judge", "model", "intent", "language", "criterion", "mean_score", "n"]
GRID_COLUMNS = ["judge", "reference_model", "model", "mean_score", "n", "parse_failures", "rank"]
BIAS_COLUMNS = ["judge", "model", "mean_rating", "bias", "n"]
USER_ALIGNMENT_COLUMNS = ["judge", "model", "n_intents", "pearson_r", "p_value"]
BT_COLUMNS = ["model", "coefficient", "rating", "comparisons", "wins", "ties", "losses", "at_bound"]
HUMAN_ALIGNMENT_COLUMNS = ["judge", "n_models", "pearson_r", "p_value", "spearman_rho", "ranks_agree"]


def _parsed(rows: pd.DataFrame) -> pd.DataFrame:
    return rows[rows["parse_ok"].astype(bool) & rows["final_score"].notna()]


def _scopes(rows: pd.DataFrame) -> Iterable[tuple[str, str, pd.DataFrame]]:
    """(intent, language, rows) for every intent × language, each intent and language alone, and all."""
    for intent in [ALL, *sorted(rows["intent"].dropna().unique())]:
        for language in [ALL, *sorted(rows["language"].dropna().unique())]:
            scoped = rows
            if intent != ALL:
                scoped = scoped[scoped["intent"] == intent]
            if language != ALL:
                scoped = scoped[scoped["language"] == language]
            if len(scoped):
                yield intent, language, scoped


def leaderboard(judgments: pd.DataFrame) -> pd.DataFrame:
    """Mean final score per judge × model × intent × language, with 'all' rows for every margin.

    ``judgments`` has judge, model, intent, language, final_score, parse_ok (failed calls already
    left out). n counts parsed judgments; parse failures are counted beside it and are never a
    score. final_score is NaN when nothing in the scope parsed.
    """
    rows = []
    for (judge, model), group in judgments.groupby(["judge", "model"]):
        for intent, language, scoped in _scopes(group):
            parsed = _parsed(scoped)
            rows.append({"judge": judge, "model": model, "intent": intent, "language": language,
                         "final_score": float(parsed["final_score"].mean()) if len(parsed) else math.nan,
                         "n": len(parsed), "parse_failures": len(scoped) - len(parsed)})
    table = pd.DataFrame(rows, columns=LEADERBOARD_COLUMNS)
    table["final_score"] = table["final_score"].astype("float64")
    return table


def criterion_scores_of(value) -> dict[str, int]:
    """Criterion scores stored as JSON text (or a dict), without the final score."""
    if isinstance(value, str) and value:
        value = json.loads(value)
    if not isinstance(value, Mapping):
        return {}
    return {k: int(v) for k, v in value.items() if k != FINAL and v is not None}


def criterion_means(judgments: pd.DataFrame) -> pd.DataFrame:
    """Mean of each criterion's score per judge × model × intent × language (and 'all' margins).

    Over 'all' intents a criterion's mean covers the items whose intent uses it.
    ``judgments`` needs a criterion_scores column (JSON text as stored, or dicts).
    """
    long = []
    for row in _parsed(judgments).itertuples(index=False):
        for criterion, score in criterion_scores_of(row.criterion_scores).items():
            long.append({"judge": row.judge, "model": row.model, "intent": row.intent,
                         "language": row.language, "criterion": criterion, "score": score})
    long_df = pd.DataFrame(long, columns=["judge", "model", "intent", "language", "criterion", "score"])
    rows = []
    for (judge, model), group in long_df.groupby(["judge", "model"]):
        for intent, language, scoped in _scopes(group):
            for criterion, scores in scoped.groupby("criterion")["score"]:
                rows.append({"judge": judge, "model": model, "intent": intent, "language": language,
                             "criterion": criterion, "mean_score": float(scores.mean()), "n": len(scores)})
    return pd.DataFrame(rows, columns=CRITERION_COLUMNS)


def cross_validation_grid(cross: pd.DataFrame) -> pd.DataFrame:
    """Mean final score of every candidate per (evaluator judge, reference model) pair.

    ``cross`` has judge, reference_model, model, final_score, parse_ok. rank orders the candidates
    within one (judge, reference model) cell, 1 = best (ties share the better rank); it is NaN
    for a candidate with no parsed score.
    """
    rows = []
    for (judge, reference, model), group in cross.groupby(["judge", "reference_model", "model"]):
        parsed = _parsed(group)
        rows.append({"judge": judge, "reference_model": reference, "model": model,
                     "mean_score": float(parsed["final_score"].mean()) if len(parsed) else math.nan,
                     "n": len(parsed), "parse_failures": len(group) - len(parsed)})
    table = pd.DataFrame(rows, columns=GRID_COLUMNS)
    table["mean_score"] = table["mean_score"].astype("float64")
    table["rank"] = table.groupby(["judge", "reference_model"])["mean_score"].rank(ascending=False, method="min")
    return table


def rating_bias(cross: pd.DataFrame) -> pd.DataFrame:
    """Rating bias per evaluator: bias(A) = mean over B of (Rating_{A,B}(B) − 8).

    Rating_{A,B}(B) is the mean score judge A gives model B's answer when the reference is B's own
    other answer: the grid rows with model == reference_model. One row per (judge, model B) with
    that mean and its bias, and one row per judge with model = 'all' holding bias(A) (an
    unweighted mean over the models B that have a parsed rating; n = number of such models).
    """
    own = _parsed(cross[cross["model"] == cross["reference_model"]])
    rows = []
    for judge, group in own.groupby("judge"):
        per_model = group.groupby("model")["final_score"].agg(["mean", "size"])
        for model, stats in per_model.iterrows():
            rows.append({"judge": judge, "model": model, "mean_rating": float(stats["mean"]),
                         "bias": float(stats["mean"]) - REFERENCE_SCORE, "n": int(stats["size"])})
        rows.append({"judge": judge, "model": ALL, "mean_rating": float(per_model["mean"].mean()),
                     "bias": float(per_model["mean"].mean()) - REFERENCE_SCORE, "n": len(per_model)})
    return pd.DataFrame(rows, columns=BIAS_COLUMNS)


def user_alignment(board: pd.DataFrame, satisfaction: pd.DataFrame) -> pd.DataFrame:
    """Pearson correlation of benchmark score per intent with users' satisfaction per intent.

    ``board`` is the leaderboard; ``satisfaction`` has intent and satisfaction (1–5) and optionally
    model. Without a model column, each intent's benchmark score is the mean over models of their
    mean final score (language 'all'), one row per judge with model 'all'. With a model column,
    one row per judge × model pairs that model's per-intent scores with its own satisfaction.
    """
    per_intent = board[(board["intent"] != ALL) & (board["language"] == ALL) & board["final_score"].notna()]
    has_model = "model" in satisfaction.columns and satisfaction["model"].notna().any()
    rows = []
    for judge, scores in per_intent.groupby("judge"):
        if has_model:
            groups = [(model, scores[scores["model"] == model], satisfaction[satisfaction["model"] == model])
                      for model in sorted(set(scores["model"]) & set(satisfaction["model"].dropna()))]
        else:
            groups = [(ALL, scores, satisfaction)]
        for model, model_scores, survey in groups:
            benchmark = model_scores.groupby("intent")["final_score"].mean()
            users = survey.groupby("intent")["satisfaction"].mean()
            shared = sorted(set(benchmark.index) & set(users.index))
            r, p = pearson([float(benchmark[i]) for i in shared], [float(users[i]) for i in shared])
            rows.append({"judge": judge, "model": model, "n_intents": len(shared), "pearson_r": r, "p_value": p})
    return pd.DataFrame(rows, columns=USER_ALIGNMENT_COLUMNS)


HUMAN_WINNERS = ("A", "B", "tie", "undetermined")
_WINNER_AS_VERDICT = {"A": "A>B", "B": "B>A", "tie": "A=B"}


def bradley_terry(comparisons: pd.DataFrame) -> pd.DataFrame:
    """Bradley–Terry coefficients from human pairwise choices (winner A, B, tie or undetermined).

    'undetermined' rows are excluded; a tie is half a win for each side. The fit is
    ``benchwright.ratings`` (maximum likelihood, no anchor): ``rating`` is on the Elo scale with
    mean 1000, ``coefficient`` the same fit as a natural-log strength centred on 0, so that
    P(i beats j) = 1 / (1 + exp(coefficient_j − coefficient_i)). ``at_bound`` marks a model that
    won or lost every comparison (no finite estimate). Raises ValueError when the models are not
    all connected by comparisons, or when there is none.
    """
    from benchwright import ratings

    unknown = set(comparisons["winner"]) - set(HUMAN_WINNERS)
    if unknown:
        raise ValueError(f"unknown winner value(s) {sorted(unknown)}; expected {HUMAN_WINNERS}")
    decided = comparisons[comparisons["winner"] != "undetermined"]
    battles = pd.DataFrame({"model_a": decided["model_a"], "model_b": decided["model_b"],
                            "verdict": decided["winner"].map(_WINNER_AS_VERDICT)})
    table = ratings.rating_table(battles, anchor=None, rounds=0)
    table["coefficient"] = (table["rating"] - ratings.INIT_RATING) * math.log(ratings.BASE) / ratings.SCALE
    table = table.rename(columns={"judgments": "comparisons"})
    return table[BT_COLUMNS].reset_index(drop=True)


def human_alignment(board: pd.DataFrame, coefficients: pd.DataFrame) -> pd.DataFrame:
    """Per judge: Pearson r of BT coefficients with overall benchmark scores, Spearman ρ, and
    whether the two rank orders agree exactly (over the models present in both)."""
    from scipy import stats

    overall = board[(board["intent"] == ALL) & (board["language"] == ALL) & board["final_score"].notna()]
    bt = coefficients.set_index("model")["coefficient"]
    rows = []
    for judge, scores in overall.groupby("judge"):
        benchmark = scores.set_index("model")["final_score"]
        shared = sorted(set(benchmark.index) & set(bt.index))
        x, y = [float(benchmark[m]) for m in shared], [float(bt[m]) for m in shared]
        r, p = pearson(x, y)
        rho = float(stats.spearmanr(x, y).statistic) if len(shared) >= 3 and not math.isnan(r) else math.nan
        agree = len(shared) >= 2 and (sorted(shared, key=lambda m: -benchmark[m]) == sorted(shared, key=lambda m: -bt[m]))
        rows.append({"judge": judge, "n_models": len(shared), "pearson_r": r, "p_value": p,
                     "spearman_rho": rho, "ranks_agree": bool(agree)})
    return pd.DataFrame(rows, columns=HUMAN_ALIGNMENT_COLUMNS)
