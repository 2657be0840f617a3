"""Small anchor sets: estimate a model's full-benchmark score from about a fifth of the items.

After tinyBenchmarks (Polo et al., "tinyBenchmarks: evaluating LLMs with fewer examples", ICML 2024): fit an
item-response model on the models already judged, cluster the items by their item parameters, keep the item
nearest each cluster's centre (an *anchor*, weighted by its cluster's share of the items), then estimate a new
model's score from its anchor results alone. Their gp-IRT estimate mixes two estimates; so does ours:

* the **anchor estimate**: the cluster-weighted mean of the anchor results (their "IRT clustering" anchors);
* the **IRT estimate**: the model's ability fitted on its anchor results with the item parameters held fixed,
  then every other item's result predicted from it (their p-IRT);
* the **estimate**: the mean of the two (gp-IRT mixes them with a weight; equal weights met the target measured
  in `scripts/anchors_validation.py`, README.md#small-anchor-sets).

The item-response model is a two-parameter logistic (2PL) one on scipy: P(model m wins a battle on item i) =
σ(a_i·θ_m + d_i), with discrimination a_i, intercept d_i (difficulty b_i = −d_i/a_i) and ability θ_m, fitted by
penalized maximum likelihood (priors θ ~ N(0, 1), a ~ N(1, 1), d ~ N(0, 10)) on binomial counts: a (model, item)
cell holds the candidate's `points` out of `weight` battles. That is how a pairwise benchmark scores: with
Arena-Hard's weights a strong verdict is 3 battles, a tie half a win, and the full score (`full_scores`) is
100 · Σ points / Σ weight over every item — the win rate against the baseline. A graded benchmark (URS's final
score, 1-10) gives each judgment (score − 1) / 9 of a point out of one, its estimates turned back to its scale. Because a decisive item weighs
more, the IRT estimate also predicts each item's weight from the predicted win chance (an item's mean weight,
plus a slope on (2p − 1)² shared by all items, both fitted on the known models).

The interval is a percentile bootstrap over the anchors (resampled with replacement, both estimates recomputed).

Pure numpy/scipy; the warehouse side is assets/anchors.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchwright import ratings
from benchwright.numeric import one_blas_thread
from benchwright.quality import between

# tinyBenchmarks' number of anchors; on ko-arena-hard (500 prompts) 50 anchors (10 %) missed the error target
# and 100 met it (README.md#small-anchor-sets), so a benchmark gets 100 anchors or a fifth of its items.
MAX_ANCHORS = 100
ANCHOR_SHARE = 0.2
# Below these there is nothing to fit an item model on: the asset records "not enough data" instead.
MIN_MODELS = 10
MIN_ITEMS = 50
# θ is found on a grid (every bootstrap round at once); its prior keeps a model that wins or loses every
# anchor finite.
THETA_GRID = np.linspace(-6.0, 6.0, 601)
BOOTSTRAP_ROUNDS = 200
INTERVAL = 0.95


@dataclass(frozen=True)
class ItemResponses:
    """Per (model, item): the candidate's points and the battles they were out of (NaN: no parsed judgment)."""

    models: list[str]
    items: list[str]
    points: np.ndarray  # models × items
    weight: np.ndarray  # models × items

    def take(self, rows: Sequence[int]) -> "ItemResponses":
        rows = list(rows)
        return ItemResponses([self.models[r] for r in rows], self.items, self.points[rows], self.weight[rows])


def item_responses(judgments: pd.DataFrame, baseline: str, weights: Mapping[str, float],
                   reuse_single_game: bool = False) -> ItemResponses:
    """The cells from pairwise judgment rows (the columns of `creation_pairwise_judgments`) of one judge, each
    parsed judgment a battle against `baseline` weighted by its verdict (`ratings.arena_hard_weights()` or
    `ratings.unit_weights()`), a tie half a win. `reuse_single_game`: Arena-Hard's rule (ratings)."""
    battles = ratings.battles_from_judgments(judgments, baseline, reuse_single_game=reuse_single_game,
                                             with_prompt=True)
    verdict = battles["verdict"].astype(str)
    a_share = verdict.map(ratings._A_SCORE).astype(float).to_numpy()
    # The baseline judged against itself (Arena-Hard ships that file) is its own candidate, in position B.
    candidate_is_a = (battles["model_a"].astype(str) != baseline).to_numpy()
    frame = pd.DataFrame({
        "model": np.where(candidate_is_a, battles["model_a"].astype(str), battles["model_b"].astype(str)),
        "item": battles["prompt"].to_numpy(),
        "weight": verdict.map(dict(weights)).astype(float).to_numpy(),
    })
    frame["points"] = frame["weight"] * np.where(candidate_is_a, a_share, 1.0 - a_share)
    cells = frame.groupby(["model", "item"])[["points", "weight"]].sum()
    points = cells["points"].unstack()
    weight = cells["weight"].unstack().reindex_like(points)
    return ItemResponses(list(points.index), [str(i) for i in points.columns], points.to_numpy(float),
                         weight.to_numpy(float))


def full_scores(responses: ItemResponses) -> np.ndarray:
    """Each model's score over every item it has: 100 · Σ points / Σ weight (the win rate against the baseline)."""
    return 100.0 * np.nansum(responses.points, axis=1) / np.nansum(responses.weight, axis=1)


@dataclass(frozen=True)
class ItemModel:
    """A 2PL fit: per item its discrimination and intercept, and the weight model (see the module docstring)."""

    items: list[str]
    discrimination: np.ndarray
    intercept: np.ndarray
    mean_weight: np.ndarray      # the item's mean battles per model (over the known models)
    mean_decisiveness: np.ndarray  # the item's mean (2p − 1)² over the known models
    weight_slope: float          # battles gained per unit of (2p − 1)², shared by every item
    ability: np.ndarray          # of the known models

    @property
    def difficulty(self) -> np.ndarray:
        return -self.intercept / self.discrimination

    def predicted_weight(self, p: np.ndarray) -> np.ndarray:
        return np.maximum(self.mean_weight + self.weight_slope * ((2 * p - 1) ** 2 - self.mean_decisiveness), 1e-6)


@one_blas_thread
def fit_item_model(responses: ItemResponses, max_iterations: int = 1000) -> ItemModel:
    """Penalized maximum likelihood of the 2PL on the responses' binomial cells (L-BFGS, analytic gradient)."""
    from scipy import optimize, special  # imported where used: scipy costs every process's start

    known = ~np.isnan(responses.weight)
    weight = np.where(known, responses.weight, 0.0)
    points = np.where(known, responses.points, 0.0)
    n_models, n_items = weight.shape
    total = weight.sum(axis=1)
    share = np.clip(points.sum(axis=1) / np.where(total > 0, total, 1.0), 0.01, 0.99)
    start_theta = special.logit(share)
    start_theta = (start_theta - start_theta.mean()) / (start_theta.std() or 1.0)

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta, a, d = x[:n_models], x[n_models:n_models + n_items], x[n_models + n_items:]
        z = np.outer(theta, a) + d
        log_likelihood = (points * special.log_expit(z) + (weight - points) * special.log_expit(-z)).sum()
        penalty = 0.5 * (theta @ theta) + 0.5 * ((a - 1) @ (a - 1)) + 0.05 * (d @ d)
        residual = points - weight * special.expit(z)
        gradient = np.concatenate([residual @ a - theta, theta @ residual - (a - 1), residual.sum(axis=0) - d / 10])
        return -(log_likelihood - penalty), -gradient

    start = np.concatenate([start_theta, np.ones(n_items), np.zeros(n_items)])
    result = optimize.minimize(objective, start, jac=True, method="L-BFGS-B", options={"maxiter": max_iterations})
    theta, a, d = result.x[:n_models], result.x[n_models:n_models + n_items], result.x[n_models + n_items:]
    p = special.expit(np.outer(theta, a) + d)
    decisiveness = (2 * p - 1) ** 2
    counted = known.sum(axis=0).clip(min=1)
    mean_weight = weight.sum(axis=0) / counted
    mean_decisiveness = np.where(known, decisiveness, 0).sum(axis=0) / counted
    centred_q = np.where(known, decisiveness - mean_decisiveness, 0.0)
    centred_w = np.where(known, weight - mean_weight, 0.0)
    spread = float((centred_q ** 2).sum())
    slope = float((centred_w * centred_q).sum() / spread) if spread > 0 else 0.0
    return ItemModel(responses.items, a, d, mean_weight, mean_decisiveness, slope, theta)


@dataclass(frozen=True)
class AnchorSet:
    """The chosen items (indices into the model's items) and each one's share of the benchmark."""

    model: ItemModel
    anchors: np.ndarray
    weights: np.ndarray  # sums to 1

    @property
    def item_ids(self) -> list[str]:
        return [self.model.items[i] for i in self.anchors]


def anchor_count(n_items: int) -> int:
    return int(min(MAX_ANCHORS, max(1, round(ANCHOR_SHARE * n_items))))


def choose_anchors(model: ItemModel, count: int, seed: int = 0) -> AnchorSet:
    """k-means (k-means++ start, `seed`) on the standardized (discrimination, intercept) of the items; each
    cluster's anchor is its item nearest the centre, weighted by the cluster's share of the items."""
    from scipy.cluster.vq import kmeans2

    features = np.column_stack([model.discrimination, model.intercept])
    features = (features - features.mean(axis=0)) / np.where(features.std(axis=0) > 0, features.std(axis=0), 1.0)
    centres, labels = kmeans2(features, count, seed=seed, minit="++")
    anchors, sizes = [], []
    for cluster in range(len(centres)):
        members = np.flatnonzero(labels == cluster)
        if len(members):  # an empty cluster has no anchor (k-means may leave one empty)
            anchors.append(members[np.argmin(((features[members] - centres[cluster]) ** 2).sum(axis=1))])
            sizes.append(len(members))
    order = np.argsort(anchors)
    return AnchorSet(model, np.asarray(anchors)[order], np.asarray(sizes, float)[order] / len(model.items))


@dataclass(frozen=True)
class Estimate:
    score: float
    low: float
    high: float
    anchor_estimate: float
    irt_estimate: float
    ability: float
    anchors_answered: int


def _estimates(anchor_set: AnchorSet, counts: np.ndarray, points: np.ndarray, weight: np.ndarray) -> tuple:
    """Anchor and IRT estimates and the ability, each an array over the rows of `counts` (rounds × anchors: how
    often each anchor is drawn; a row of ones is the estimate itself)."""
    from scipy import special

    model, shares = anchor_set.model, anchor_set.weights
    anchor_estimate = 100 * (counts @ (shares * points)) / (counts @ (shares * weight))
    # MAP ability on the grid (prior N(0, 1)), every round at once.
    z = THETA_GRID[:, None] * model.discrimination[anchor_set.anchors] + model.intercept[anchor_set.anchors]
    log_posterior = ((counts * points) @ special.log_expit(z).T + (counts * (weight - points)) @ special.log_expit(-z).T
                     - 0.5 * THETA_GRID ** 2)
    theta = THETA_GRID[np.argmax(log_posterior, axis=1)]
    p = special.expit(theta[:, None] * model.discrimination[None, :] + model.intercept[None, :])
    predicted_weight = model.predicted_weight(p)
    # The anchors' own results are known: predicted only where the model was not run.
    others = np.ones(len(model.items), bool)
    others[anchor_set.anchors] = False
    numerator = points.sum() + (p * predicted_weight)[:, others].sum(axis=1)
    denominator = weight.sum() + predicted_weight[:, others].sum(axis=1)
    return anchor_estimate, 100 * numerator / denominator, theta


@one_blas_thread
def estimate(anchor_set: AnchorSet, points: np.ndarray, weight: np.ndarray, rounds: int = BOOTSTRAP_ROUNDS,
             seed: int = 0) -> Estimate:
    """A model's full-benchmark score from its results on the anchors (`points` / `weight` in the order of
    `anchor_set.anchors`; NaN where an anchor has no parsed judgment, which is then left out)."""
    answered = ~np.isnan(points) & ~np.isnan(weight) & (np.nan_to_num(weight) > 0)
    if not answered.any():
        raise ValueError("no anchor has a result: nothing to estimate from")
    kept = np.flatnonzero(answered)
    subset = AnchorSet(anchor_set.model, anchor_set.anchors[kept], anchor_set.weights[kept])
    points, weight = points[kept], weight[kept]
    anchor_mean, irt, theta = _estimates(subset, np.ones((1, len(kept))), points, weight)
    drawn = np.random.default_rng(seed).integers(0, len(kept), size=(rounds, len(kept)))
    counts = np.zeros((rounds, len(kept)))
    np.add.at(counts, (np.arange(rounds)[:, None], drawn), 1.0)
    boot_anchor, boot_irt, _ = _estimates(subset, counts, points, weight)
    boot = (boot_anchor + boot_irt) / 2
    tail = (1 - INTERVAL) / 2 * 100
    low, high = np.percentile(boot, [tail, 100 - tail])
    score = float((anchor_mean[0] + irt[0]) / 2)
    return Estimate(score, float(min(low, score)), float(max(high, score)), float(anchor_mean[0]), float(irt[0]),
                    float(theta[0]), len(kept))


@dataclass(frozen=True)
class Validation:
    """One held-out split: anchors chosen on the known models, scores estimated for the others."""

    split: int
    anchors: int
    held_out: list[str]
    full: np.ndarray
    estimated: np.ndarray
    low: np.ndarray
    high: np.ndarray
    method: str = "anchors"  # or what it is compared with (scripts/anchors_validation.py)

    @property
    def spearman(self) -> float:
        from scipy import stats

        return float(stats.spearmanr(self.estimated, self.full)[0])

    @property
    def errors(self) -> np.ndarray:
        return self.estimated - self.full

    @property
    def coverage(self) -> float:
        return float(np.mean((self.low <= self.full) & (self.full <= self.high)))


@one_blas_thread
def held_out_validation(responses: ItemResponses, known_models: int, count: int, split: int,
                        rounds: int = BOOTSTRAP_ROUNDS) -> Validation:
    """Fit on `known_models` models drawn at random (seed `split`), choose `count` anchors, estimate every other
    model's score from its anchor cells and compare with its full score."""
    order = np.random.default_rng(split).permutation(len(responses.models))
    known, held_out = order[:known_models], order[known_models:]
    anchor_set = choose_anchors(fit_item_model(responses.take(known)), count, seed=split)
    full = full_scores(responses.take(held_out))
    found = [estimate(anchor_set, responses.points[m, anchor_set.anchors], responses.weight[m, anchor_set.anchors],
                      rounds=rounds, seed=split) for m in held_out]
    return Validation(split, len(anchor_set.anchors), [responses.models[m] for m in held_out], full,
                      np.array([e.score for e in found]), np.array([e.low for e in found]),
                      np.array([e.high for e in found]))


# --- the warehouse's tables (assets/anchors.py) ---------------------------------------------------------------

FIT_COLUMNS = ["benchmark", "source", "judge", "baseline", "status", "reason", "models", "items", "anchors",
               "outcome_weights", "single_game_rule", "score_min", "score_max", "weight_slope", "seed"]
ITEM_COLUMNS = ["benchmark", "source", "judge", "item_id", "is_anchor", "weight", "discrimination", "intercept",
                "difficulty", "mean_weight", "mean_decisiveness"]
ESTIMATE_COLUMNS = ["benchmark", "source", "judge", "model", "estimate", "estimate_low", "estimate_high",
                    "anchor_estimate", "irt_estimate", "ability", "anchors", "anchors_answered", "items_judged",
                    "observed_score", "bootstrap_rounds", "seed"]
SET_KEY = ["benchmark", "source", "judge"]
FITTED = "fitted"
NOT_ENOUGH = "not enough data"
URS_SCORES = (1.0, 10.0)  # URS's final score: a judgment is (score − 1) / 9 of a point


@dataclass(frozen=True)
class ScoredSet:
    """One benchmark's cells under one judge, and how they were scored (the `anchor_fits` columns that say so).
    Estimates are reported on the benchmark's own scale: score_min + (score_max − score_min) · share."""

    benchmark: str
    source: str
    judge: str
    baseline: str
    responses: ItemResponses
    outcome_weights: str
    single_game_rule: str = "none"
    score_min: float = 0.0
    score_max: float = 100.0

    def scaled(self, share_percent: float) -> float:
        return self.score_min + (self.score_max - self.score_min) * share_percent / 100


def benchmark_of_source(source: str) -> str:
    """Our own pairwise judgments are Creation's (`source = 'benchwright'`); imported ones are interop's."""
    return "creation" if source == "benchwright" else "interop"


def pairwise_sets(judgments: pd.DataFrame, baselines: Mapping[str, str], weights: Mapping[str, Mapping[str, float]],
                  reuse_single_game: set[str]) -> list[ScoredSet]:
    """Per (source, judge) of pairwise judgment rows whose source has a baseline: its cells (`item_responses`),
    scored as a win rate against the baseline (0-100)."""
    sets = []
    for (source, judge), rows in judgments.groupby(["source", "judge"], sort=True):
        if source not in baselines:
            continue
        source_weights = dict(weights.get(source) or ratings.unit_weights())
        reuse = source in reuse_single_game
        sets.append(ScoredSet(benchmark_of_source(source), source, judge, baselines[source],
                              item_responses(rows, baselines[source], source_weights, reuse_single_game=reuse),
                              ratings.weights_label(source_weights), "reuse_first" if reuse else "none"))
    return sets


def score_responses(rows: pd.DataFrame, low: float, high: float) -> ItemResponses:
    """Cells of graded judgments (`model`, `item_id`, `score` within [low, high]): each is (score − low) / (high −
    low) of a point out of one (several judgments of a cell add up)."""
    frame = rows.assign(points=(rows["score"].astype(float) - low) / (high - low), weight=1.0)
    cells = frame.groupby(["model", "item_id"])[["points", "weight"]].sum()
    points = cells["points"].unstack()
    weight = cells["weight"].unstack().reindex_like(points)
    return ItemResponses([str(m) for m in points.index], [str(i) for i in points.columns], points.to_numpy(float),
                         weight.to_numpy(float))


def urs_sets(judgments: pd.DataFrame) -> list[ScoredSet]:
    """Per judge of URS's parsed final scores (`model`, `judge`, `item_id`, `score`, `reference_model`): its cells,
    scored on the final score's own 1-10 scale (the URS leaderboard's mean)."""
    low, high = URS_SCORES
    return [ScoredSet("urs", "benchwright", judge, ", ".join(sorted(set(rows["reference_model"].astype(str)))),
                      score_responses(rows, low, high), f"final score {low:g}-{high:g} as (s - {low:g}) / "
                      f"{high - low:g} of a point", score_min=low, score_max=high)
            for judge, rows in judgments.groupby("judge", sort=True)]


def anchor_tables(sets: Sequence[ScoredSet], seed: int = 0, min_models: int = MIN_MODELS,
                  min_items: int = MIN_ITEMS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """For each scored set: the item model and its anchors (`ITEM_COLUMNS`, one row per item of the fit), and one
    `FIT_COLUMNS` row saying what was fitted — or that there is not enough data (fewer than `min_models` models or
    `min_items` items), with no anchors at all then."""
    fits, items = [], []
    for scored in sets:
        responses = scored.responses
        n_models, n_items = len(responses.models), len(responses.items)
        fit = {"benchmark": scored.benchmark, "source": scored.source, "judge": scored.judge,
               "baseline": scored.baseline, "models": n_models, "items": n_items,
               "outcome_weights": scored.outcome_weights, "single_game_rule": scored.single_game_rule,
               "score_min": scored.score_min, "score_max": scored.score_max, "seed": seed}
        if n_models < min_models or n_items < min_items:
            fits.append({**fit, "status": NOT_ENOUGH, "anchors": 0, "weight_slope": None,
                         "reason": f"{n_models} models and {n_items} items judged; an item model needs at least "
                                   f"{min_models} models and {min_items} items"})
            continue
        model = fit_item_model(responses)
        chosen = choose_anchors(model, anchor_count(n_items), seed=seed)
        share = np.zeros(n_items)
        share[chosen.anchors] = chosen.weights
        fits.append({**fit, "status": FITTED, "reason": None, "anchors": len(chosen.anchors),
                     "weight_slope": model.weight_slope})
        items.append(pd.DataFrame({
            "benchmark": scored.benchmark, "source": scored.source, "judge": scored.judge, "item_id": model.items,
            "is_anchor": share > 0, "weight": share, "discrimination": model.discrimination,
            "intercept": model.intercept, "difficulty": model.difficulty, "mean_weight": model.mean_weight,
            "mean_decisiveness": model.mean_decisiveness}))
    fits_table = pd.DataFrame(fits, columns=FIT_COLUMNS)
    items_table = pd.concat(items, ignore_index=True)[ITEM_COLUMNS] if items else pd.DataFrame(columns=ITEM_COLUMNS)
    return fits_table, items_table


def anchor_set_from_rows(items: pd.DataFrame, weight_slope: float) -> AnchorSet:
    """The AnchorSet of one set as stored: its `anchor_items` rows."""
    model = ItemModel([str(i) for i in items["item_id"]], items["discrimination"].to_numpy(float),
                      items["intercept"].to_numpy(float), items["mean_weight"].to_numpy(float),
                      items["mean_decisiveness"].to_numpy(float), float(weight_slope), np.empty(0))
    is_anchor = items["is_anchor"].to_numpy(bool)
    return AnchorSet(model, np.flatnonzero(is_anchor), items["weight"].to_numpy(float)[is_anchor])


def estimate_table(sets: Sequence[ScoredSet], fits: pd.DataFrame, items: pd.DataFrame,
                   rounds: int = BOOTSTRAP_ROUNDS, seed: int = 0) -> tuple[pd.DataFrame, list[str]]:
    """Each model's estimated full score from its anchor cells, on its benchmark's scale, for every scored set
    with a fitted row in `fits` (`ESTIMATE_COLUMNS`), and why any model was left out."""
    rows, problems = [], []
    fitted = fits[fits["status"] == FITTED].set_index(SET_KEY)
    for scored in sets:
        key = (scored.benchmark, scored.source, scored.judge)
        if key not in fitted.index:
            continue
        mine = items[(items["benchmark"] == scored.benchmark) & (items["source"] == scored.source)
                     & (items["judge"] == scored.judge)]
        anchor_set = anchor_set_from_rows(mine, fitted.loc[key, "weight_slope"])
        responses = scored.responses
        column = {item: k for k, item in enumerate(responses.items)}
        observed = full_scores(responses)
        for m, name in enumerate(responses.models):
            points = np.array([responses.points[m, column[i]] if i in column else np.nan for i in anchor_set.item_ids])
            weight = np.array([responses.weight[m, column[i]] if i in column else np.nan for i in anchor_set.item_ids])
            try:
                found = estimate(anchor_set, points, weight, rounds=rounds, seed=seed)
            except ValueError as error:
                problems.append(f"{scored.benchmark} / {scored.source} / {scored.judge} / {name}: {error}")
                continue
            rows.append({"benchmark": scored.benchmark, "source": scored.source, "judge": scored.judge, "model": name,
                         "estimate": scored.scaled(found.score), "estimate_low": scored.scaled(found.low),
                         "estimate_high": scored.scaled(found.high),
                         "anchor_estimate": scored.scaled(found.anchor_estimate),
                         "irt_estimate": scored.scaled(found.irt_estimate), "ability": found.ability,
                         "anchors": len(anchor_set.anchors), "anchors_answered": found.anchors_answered,
                         "items_judged": int(np.sum(~np.isnan(responses.weight[m]))),
                         "observed_score": scored.scaled(float(observed[m])), "bootstrap_rounds": rounds,
                         "seed": seed})
    return pd.DataFrame(rows, columns=ESTIMATE_COLUMNS), problems


# Schema and range suites (benchwright.quality) of the three tables (checks/anchors.py).
FITS_SUITE: list[dict] = [
    {"type": "columns_exist", "columns": FIT_COLUMNS},
    {"type": "column_values_in_set", "column": "status", "values": [FITTED, NOT_ENOUGH]},
    between("models", 0, None), between("items", 0, None), between("anchors", 0, MAX_ANCHORS),
    {"type": "columns_unique", "columns": SET_KEY},
]
ITEMS_SUITE: list[dict] = [
    {"type": "columns_exist", "columns": ITEM_COLUMNS},
    between("weight", 0, 1), between("mean_weight", 0, None), between("mean_decisiveness", 0, 1),
    {"type": "column_not_null", "column": "discrimination"}, {"type": "column_not_null", "column": "intercept"},
    {"type": "columns_unique", "columns": [*SET_KEY, "item_id"]},
]
ESTIMATES_SUITE: list[dict] = [
    {"type": "columns_exist", "columns": ESTIMATE_COLUMNS},
    *(between(c, 0, 100) for c in ("estimate", "estimate_low", "estimate_high", "anchor_estimate", "irt_estimate",
                                    "observed_score")),
    between("anchors_answered", 1, MAX_ANCHORS),
    {"type": "columns_unique", "columns": [*SET_KEY, "model"]},
]


# Benchmarks whose items a run can be limited to: an imported source has nothing to run.
RUNNABLE = ("creation", "urs")


def anchored_items(snapshot: str) -> tuple[dict[str, list[str]], list[str]]:
    """From a full home's analyst snapshot: per runnable benchmark with a fitted set, its anchor items (the union
    over its judges' sets, sorted); and for the others a line saying why there is none."""
    import duckdb

    with duckdb.connect(snapshot, read_only=True) as con:
        tables = {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        if not {"anchor_fits", "anchor_items"} <= tables:
            return {}, [f"{snapshot} has no anchor tables: run the full benchmark first (python3.11 dev.py run)"]
        fits = con.execute("SELECT benchmark, source, judge, status, reason FROM anchor_fits").df()
        items = con.execute("SELECT DISTINCT benchmark, item_id FROM anchor_items WHERE is_anchor").df()
    found = {benchmark: sorted(rows["item_id"].astype(str)) for benchmark, rows in items.groupby("benchmark")
             if benchmark in RUNNABLE}
    reasons = [f"{fit.benchmark} ({fit.source} / {fit.judge}): {fit.reason}" for fit in fits.itertuples()
               if fit.status != FITTED and fit.benchmark in RUNNABLE and fit.benchmark not in found]
    missing = [b for b in RUNNABLE if b not in found and b not in set(fits["benchmark"])]
    reasons += [f"{benchmark}: no judgments in the full home yet" for benchmark in missing]
    return found, reasons
