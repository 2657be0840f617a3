"""Ratings from pairwise battles: Bradley–Terry on the Elo scale, bootstrap intervals, win rates.

A *battle* is one pairwise judgment: ``model_a``, ``model_b`` and a canonical ``verdict``
(``A>>B``, ``A>B``, ``A=B``, ``B>A``, ``B>>A``) from A's side. ``battles_from_judgments`` turns rows
of ``creation_pairwise_judgments`` (ours or imported) into battles.

Model. ``P(i beats j) = 1 / (1 + base ** ((R_j - R_i) / scale))`` with base 10 and scale 400 (the Elo
scale, benchwright/mmmt_if/README.md#autorater-and-preferences). Ratings are fitted by maximum likelihood (``scipy.optimize``) on *aggregated
pair counts*: the battles are first summed per (model_a, model_b), so the cost of a fit grows with
the number of model pairs, not with the number of battles.

Ties. A tie counts as half a win for each side: its likelihood term is
``0.5·log P(i beats j) + 0.5·log P(j beats i)``. This is the same estimate as Chatbot Arena's and
Arena-Hard's logistic regression, which duplicates every battle and turns a tie into one win for
each side.

Weights. Every verdict carries a weight (default 1); a judgment with weight w counts as w battles.
Arena-Hard counts a strong verdict (``A>>B`` / ``B>>A``) as 3 battles: ``arena_hard_weights()``.

Anchor. With an anchor, the anchor's rating is fixed at ``init`` (1000) and the others are read
against it; without one, the mean rating is ``init``. A model must be connected to the anchor (or,
without one, to every other model) through battles; otherwise the ratings are not defined and
``fit_bradley_terry`` raises ValueError naming the models. A model that won (or lost) every battle
has no finite maximum-likelihood rating: it is stopped at ``±RATING_BOUND_LOGITS`` (about ±3,474 Elo
from the anchor) and flagged ``at_bound``. A battle of a model against itself says nothing about
relative strength and is ignored; the anchor's win rate against itself is 50 by definition.

Style control (``control``: none | style | length | markdown; Arena-Hard's method, as its
``construct_style_matrices`` / ``fit_bt`` and the ko-arena-hard-auto fork that published the files we
reproduce do it). Every answer has four counts (``STYLE_FEATURES``): tokens, headers (h1–h6 summed), list
items (ordered and unordered summed) and bold spans (``**`` and ``__`` summed); ``answer_style`` counts them
in a text. Per battle and feature: (A's count − B's count) / (A's count + B's count + 1), written from the
anchor's side when the anchor plays (Arena-Hard writes every battle as baseline against candidate), then
standardized over the battles: minus the weighted mean, divided by the weighted (population) standard
deviation, a battle weighing what it weighs in the fit (Arena-Hard repeats a ``>>`` battle 3 times). The
standardized differences enter the Bradley–Terry logit as extra columns whose coefficients γ are fitted
jointly with the models' (same likelihood, ties half a win): P(A wins) = σ(θ_A − θ_B + z·γ). ``style``
uses all four, ``length`` the tokens only, ``markdown`` the three markdown counts. The published ``score``
is then the predicted win rate against the baseline from the model coefficients alone,
100·σ(θ_model − θ_baseline): the win rate *at the average style difference of the battles* (a standardized
difference of 0), not at equal style — because of the centring, the average style gap between the baseline
and the candidates stays in the score. We fit the exact maximum likelihood; Arena-Hard calls scikit-learn's
``LogisticRegression`` with its defaults (an L2 penalty with C = 1, at most 100 L-BFGS iterations), so
its scores differ slightly. Battles whose answers lack style counts are left out of the controlled fits and
of their standardization; self-battles are ignored as everywhere here (Arena-Hard's baseline-vs-itself
battles, with zero differences, do enter its mean and deviation: measured on ko-arena-hard, including them
moves the scores by less than 0.02 points in median). A feature whose difference never varies is dropped;
collinear features (answers that always carry headers and lists together) share their effect in no
particular split, and the ratings do not depend on the split.

Intervals. ``rating_table`` bootstraps over *prompts* when the battles carry a ``prompt`` column: each
round draws as many prompts as there are, with replacement, and every battle of a drawn prompt (both
orders, every model, the strong verdicts' repeats) counts once per draw, so the correlated battles of a
prompt move together and a model entered twice under two slugs gets the same interval. 1,000 rounds by
default, seeded with numpy's ``default_rng(seed)`` (the seed is stored with the result, so a re-run gives
the same interval), 95 % percentile bounds (the 2.5 % and 97.5 % quantiles of the rounds). The rounds are
fitted all at once (``_newton_rounds``): a round's battles are its prompt draws times each prompt's
battles per row (pairs, or (pair, prompt) with style columns), and Newton's method runs on every round
together from the full-data fit — one small dense solve per round (numpy's batched solve), the first step
from per-prompt sums without a pass over the rows, until no step moves a parameter by more than 0.01
logits (what is left is of its square: within 0.01 Elo of fitting each round alone). A model that won or
lost every battle of a round stays at the bound there and the others are fitted. A round whose style
columns are collinear with the models (few drawn prompts whose style differences are alike: the optimum is
a ridge), or carry information only through battles decided beyond doubt (a judge whose verdicts a style
column separates, a model at the bound: the likelihood rises without end by less than rounding), steps by
the pseudo-inverse of its Hessian, leaving out the directions with next to no curvature: it moves only
where its battles say something, and on an exact ridge stops at the optimum nearest the full-data fit —
where a per-round L-BFGS-B fit from that start stops too. (Along a direction of no optimum, one L-BFGS-B
call per round stopped wherever its tolerance was met: on the demo, a warm start moved by 1e-9 logits moved
interval bounds by 24 Elo; the batched rounds move by as little as the start.) A round the batched fit
cannot take (a battle graph in pieces, a step past the bound, no convergence) is fitted alone as every
round used to be (Newton, then L-BFGS-B within the bounds; Newton gives up on a ridge rather than step
along it by rounding). The style columns stay as standardized on the full data. Without prompts,
``bootstrap_ratings`` resamples judgments one by one (its rounds fitted at once the same way). Ranks
from the intervals: ``upper_bound_ranks``. (Arena-Hard resamples single battle rows, 100 rounds; its published
*score* is the point estimate, not a bootstrap statistic.)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchwright.numeric import one_blas_thread
from benchwright.pairwise import CANONICAL_VERDICTS
from benchwright.quality import between

SCALE = 400.0
BASE = 10.0
INIT_RATING = 1000.0
# Fitted ratings stay within this many natural-log odds of the anchor (see the module docstring).
RATING_BOUND_LOGITS = 20.0

# Share of a battle won by A, per verdict (a tie is half a win).
_A_SCORE = {"A>>B": 1.0, "A>B": 1.0, "A=B": 0.5, "B>A": 0.0, "B>>A": 0.0}

BATTLE_COLUMNS = ["model_a", "model_b", "verdict"]
COUNT_COLUMNS = ["model_a", "model_b", "verdict", "judgments"]


def elo_win_probability(ra: float, rb: float, scale: float = SCALE, base: float = BASE) -> float:
    """Expected score of a model rated ``ra`` against one rated ``rb``: 1 / (1 + base^((rb − ra)/scale))."""
    return 1.0 / (1.0 + base ** ((rb - ra) / scale))


def unit_weights() -> dict[str, float]:
    """Every verdict counts as one battle."""
    return dict.fromkeys(CANONICAL_VERDICTS, 1.0)


def arena_hard_weights(strong_verdict_weight: float = 3.0) -> dict[str, float]:
    """Arena-Hard's weights: ``A>>B`` and ``B>>A`` count ``strong_verdict_weight`` times (default 3)."""
    weights = unit_weights()
    weights["A>>B"] = weights["B>>A"] = float(strong_verdict_weight)
    return weights


# --- battles ------------------------------------------------------------------------------------

def battles_from_judgments(judgments: pd.DataFrame, baseline: str, reuse_single_game: bool = False,
                           with_prompt: bool = False) -> pd.DataFrame:
    """Battles (model_a, model_b, verdict) from rows shaped like ``creation_pairwise_judgments``.

    Each parsed judgment is one battle between its ``model`` (the candidate) and ``baseline``; the
    candidate is A when ``candidate_position`` is 'A'. Unparsed judgments (``parse_ok`` false or no
    verdict) are not battles: they are neither wins nor losses.

    ``reuse_single_game`` is Arena-Hard's rule for a record with one game only: when a (judge,
    model, item) has an order-1 judgment and no order-2 judgment at all, Arena-Hard reads the game-1
    verdict a second time *as if it were game 2* (positions swapped: the candidate is A). The two
    battles then cancel out. Off by default: a missing order is normally a failed call.

    ``with_prompt`` adds a ``prompt`` column (the item id): what the bootstrap resamples and what style
    counts are matched on.
    """
    needed = {"model", "item_id", "judge_order", "candidate_position", "verdict", "parse_ok"}
    missing = needed - set(judgments.columns)
    if missing:
        raise ValueError(f"judgments lack columns {sorted(missing)}")
    rows = judgments
    if reuse_single_game:
        keys = [k for k in ("judge", "model", "item_id") if k in rows.columns]
        with_second = rows.loc[rows["judge_order"] == 2, keys].drop_duplicates()
        first = rows[rows["judge_order"] == 1]
        marked = first.merge(with_second, on=keys, how="left", indicator=True)
        single = first[(marked["_merge"] == "left_only").to_numpy()].copy()
        single["judge_order"] = 2
        single["candidate_position"] = "A"
        rows = pd.concat([rows, single], ignore_index=True)

    parsed = rows[rows["parse_ok"].astype(bool) & rows["verdict"].notna()]
    bad = parsed[~parsed["verdict"].isin(CANONICAL_VERDICTS)]
    if len(bad):
        raise ValueError(f"not canonical verdicts: {sorted(set(bad['verdict']))[:5]}")
    candidate_is_a = (parsed["candidate_position"] == "A").to_numpy()
    # Categorical columns: each name is hashed once here, and pair_counts counts integer codes.
    model_code, names = pd.factorize(parsed["model"].astype(str))
    names = list(names)
    if baseline not in names:
        names.append(baseline)
    baseline_code = names.index(baseline)
    names_dtype = pd.CategoricalDtype(names)
    battles = pd.DataFrame({
        "model_a": pd.Categorical.from_codes(np.where(candidate_is_a, model_code, baseline_code), dtype=names_dtype),
        "model_b": pd.Categorical.from_codes(np.where(candidate_is_a, baseline_code, model_code), dtype=names_dtype),
        "verdict": pd.Categorical(parsed["verdict"].astype(str).to_numpy(), categories=list(CANONICAL_VERDICTS)),
    })
    if with_prompt:
        battles["prompt"] = parsed["item_id"].astype(str).to_numpy()
    return battles


def _sorted_codes(column: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Integer codes of a column (-1 where missing) numbering its distinct values in sorted order, and
    those values as strings. A categorical column gives its codes without touching a string."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes, values = column.array.codes, list(column.cat.categories)
    else:
        codes, values = pd.factorize(column)
        values = list(values)
    order = sorted(range(len(values)), key=lambda k: values[k])
    if order != list(range(len(values))):
        rank = np.empty(len(values) + 1, dtype=np.int64)
        rank[order] = np.arange(len(values))
        rank[-1] = -1  # code -1 (missing) stays -1
        codes = rank[codes]
    return codes, [str(values[k]) for k in order]


def pair_counts(battles: pd.DataFrame) -> pd.DataFrame:
    """Judgments per (model_a, model_b, verdict): the aggregated input of the fit."""
    if battles.empty:
        return pd.DataFrame(columns=COUNT_COLUMNS)
    # One bincount over a combined integer key instead of a groupby over three string columns: the
    # same rows, sorted by (model_a, model_b, verdict), battles with a missing value left out.
    (a, a_names), (b, b_names), (v, v_names) = (_sorted_codes(battles[c]) for c in BATTLE_COLUMNS)
    n_b, n_v = len(b_names), len(v_names)
    key = a.astype(np.int64)  # (a · n_b + b) · n_v + v, in place: a million battles make big temporaries
    key *= n_b
    key += b
    key *= n_v
    key += v
    if min(a.min(), b.min(), v.min()) < 0:
        key = key[(a >= 0) & (b >= 0) & (v >= 0)]
    if len(a_names) * n_b * n_v <= max(len(key), 1 << 20):
        judgments = np.bincount(key, minlength=len(a_names) * n_b * n_v)
        cell = np.flatnonzero(judgments)
        judgments = judgments[cell]
    else:  # very many names for the battles: a dense table of every combination would be mostly empty
        cell, judgments = np.unique(key, return_counts=True)
    return pd.DataFrame({
        "model_a": pd.array(np.array(a_names, dtype=object)[cell // (n_b * n_v)], dtype=str),
        "model_b": pd.array(np.array(b_names, dtype=object)[cell // n_v % n_b], dtype=str),
        "verdict": pd.array(np.array(v_names, dtype=object)[cell % n_v], dtype=str),
        "judgments": judgments.astype("int64"),
    })


class _Cells:
    """Pair-and-verdict cells as index arrays, ready for the likelihood."""

    def __init__(self, counts: pd.DataFrame, weights: Mapping[str, float]):
        # Vectorised over distinct values: thousands of cells, a handful of verdicts and models.
        verdict_code, verdicts = pd.factorize(counts["verdict"].to_numpy(dtype=object), use_na_sentinel=False)
        unknown = set(verdicts) - set(_A_SCORE)
        if unknown:
            raise ValueError(f"not canonical verdicts: {sorted(unknown)}")
        unweighted = set(verdicts) - set(weights)
        if unweighted:
            raise ValueError(f"no weight given for verdicts {sorted(unweighted)}")
        cells = len(counts)
        names = np.concatenate([counts["model_a"].to_numpy(dtype=object), counts["model_b"].to_numpy(dtype=object)])
        name_code, sorted_names = pd.factorize(names, sort=True)
        a, b = name_code[:cells], name_code[cells:]
        other = a != b
        a, b, verdict_code = a[other], b[other], verdict_code[other]
        # Models that only met themselves have no rating: number the others 0..n-1 in sorted order.
        used = np.unique(np.concatenate([a, b]))
        index = np.zeros(len(sorted_names), dtype=np.int64)
        index[used] = np.arange(len(used))
        self.models = [str(sorted_names[k]) for k in used]
        self.a, self.b = index[a], index[b]
        self.judgments = counts["judgments"].to_numpy(dtype=float)[other]
        self.weight = np.array([float(weights[v]) for v in verdicts])[verdict_code]
        self.a_score = np.array([_A_SCORE[v] for v in verdicts])[verdict_code]
        self.verdicts = np.asarray(verdicts, dtype=object)[verdict_code]

    def pair_totals(self, judgments: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(i, j, weighted battles, weighted score of i) summed per unordered pair i < j."""
        n = len(self.models)
        lo, hi = np.minimum(self.a, self.b), np.maximum(self.a, self.b)
        a_is_lo = self.a == lo
        total = judgments * self.weight
        lo_score = total * np.where(a_is_lo, self.a_score, 1.0 - self.a_score)
        key = lo * n + hi
        unique, inverse = np.unique(key, return_inverse=True)
        battles = np.bincount(inverse, weights=total, minlength=len(unique))
        score = np.bincount(inverse, weights=lo_score, minlength=len(unique))
        keep = battles > 0
        return unique[keep] // n, unique[keep] % n, battles[keep], score[keep]


def _check_connected(models: list[str], i: np.ndarray, j: np.ndarray, anchor: str | None) -> None:
    from scipy.sparse import coo_matrix  # scipy is imported where it is used: it costs every process's start
    from scipy.sparse.csgraph import connected_components

    n = len(models)
    graph = coo_matrix((np.ones(len(i)), (i, j)), shape=(n, n))
    _, component = connected_components(graph, directed=False)
    root = component[models.index(anchor)] if anchor is not None else component[0]
    apart = [m for m, c in zip(models, component) if c != root]
    if apart:
        target = f"the anchor {anchor!r}" if anchor is not None else f"{models[0]!r}"
        raise ValueError(f"{len(apart)} models are not connected to {target} by any battle, so their "
                         f"ratings are undefined: {apart[:10]}")


def _linear_predictor(parameters: np.ndarray, n_models: int, i, j, features) -> np.ndarray:
    """θ_i − θ_j (+ the style term features·γ) per row.

    The style products here and in ``_newton`` use ``einsum``, not ``@``: a tall, narrow matrix product goes
    to multi-threaded BLAS, which was measured 3.6× slower than one thread on a shared two-core machine.
    """
    d = parameters[i] - parameters[j]
    if features is not None:
        d = d + np.einsum("rk,k->r", features, parameters[n_models:])
    return d


def _softplus(d: np.ndarray) -> np.ndarray:
    """log(1 + e^d), stable, and about twice as fast as numpy's logaddexp(0, d)."""
    return np.maximum(d, 0.0) + np.log1p(np.exp(-np.abs(d)))


def _newton(n_models: int, i, j, battles, score, pinned: int, features: np.ndarray | None = None,
            start: np.ndarray | None = None) -> np.ndarray | None:
    """Maximum-likelihood parameters [θ (one per model, θ[pinned] = 0), γ (one per style column)] by Newton's
    method with the exact Hessian and step halving, or None when it does not get there inside the bounds (a
    model that won or lost everything has no finite optimum) or the Hessian is singular.

    Rows are either pair totals (``battles`` weighted battles of i against j, ``score`` of them won by i) or
    single battles (weight, weighted win of i) with their ``features`` row: the likelihood has the same form,
    ``Σ battles·log(1 + e^d) − score·d`` with d = θ_i − θ_j + features·γ. ``start`` (a previous fit, e.g. the
    full-data one in a bootstrap round) usually leaves two or three steps to take. A model with no weight in
    these rows keeps its ``start`` value. For a connected battle graph the likelihood is strictly concave in
    the free parameters, and a handful of steps reach the optimum where L-BFGS-B needs dozens.
    """
    k = 0 if features is None else features.shape[1]
    played = (np.bincount(i, weights=battles, minlength=n_models)
              + np.bincount(j, weights=battles, minlength=n_models)) > 0
    played[pinned] = False
    free = np.concatenate([np.flatnonzero(played), n_models + np.arange(k)])
    scale = max(float(battles.sum()), 1.0)

    def negative_log_likelihood(parameters: np.ndarray) -> float:
        d = _linear_predictor(parameters, n_models, i, j, features)
        return float(np.sum(battles * _softplus(d) - score * d)) / scale

    parameters = np.zeros(n_models + k)
    if start is not None:  # the same fit with θ[pinned] moved to 0
        parameters = start - np.concatenate([np.full(n_models, start[pinned]), np.zeros(k)])
    value = negative_log_likelihood(parameters)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-_linear_predictor(parameters, n_models, i, j, features)))
        residual = (battles * p - score) / scale
        gradient = np.bincount(i, weights=residual, minlength=n_models) - np.bincount(j, weights=residual, minlength=n_models)
        if k:
            gradient = np.concatenate([gradient, np.einsum("rk,r->k", features, residual)])
        if np.max(np.abs(gradient[free])) <= 1e-12:
            return parameters
        # Hessian of a row: w·x xᵀ with x = e_i − e_j (+ the features) and w = battles·p·(1 − p).
        w = battles * p * (1.0 - p) / scale
        off = np.bincount(i * n_models + j, weights=w, minlength=n_models * n_models).reshape(n_models, n_models)
        off += off.T
        hessian = np.zeros((n_models + k, n_models + k))
        hessian[:n_models, :n_models] = np.diag(off.sum(axis=1)) - off
        if k:
            weighted = w[:, None] * features
            for column in range(k):
                cross = (np.bincount(i, weights=weighted[:, column], minlength=n_models)
                         - np.bincount(j, weights=weighted[:, column], minlength=n_models))
                hessian[:n_models, n_models + column] = hessian[n_models + column, :n_models] = cross
            hessian[n_models:, n_models:] = np.einsum("rk,rl->kl", features, weighted)
        block = hessian[np.ix_(free, free)]
        if k and not _style_block_has_full_rank(block, k):
            return None  # a ridge: np.linalg.solve would step along it as far as rounding says
        try:
            step = np.linalg.solve(block, gradient[free])
        except np.linalg.LinAlgError:
            return None
        if gradient[free] @ step < 1e-14:
            # The predicted gain is below what the value's rounding can show, so step halving would stall;
            # this close, the full Newton step is exact to double precision.
            parameters[free] -= step
            return parameters if np.all(np.abs(parameters[:n_models]) < RATING_BOUND_LOGITS) else None
        size = 1.0
        while True:
            trial = parameters.copy()
            trial[free] -= size * step
            trial_value = negative_log_likelihood(trial)
            if trial_value <= value:
                break
            size /= 2
            if size < 1e-12:
                # No step lowers the value any more: at the optimum up to rounding, or lost.
                return parameters if np.max(np.abs(gradient[free])) <= 1e-9 else None
        parameters, value = trial, trial_value
        if not np.all(np.abs(parameters[:n_models]) < RATING_BOUND_LOGITS):
            return None
    return None


def _style_block_has_full_rank(hessian: np.ndarray, k: int) -> bool:
    """Whether the last ``k`` parameters (style columns) of a free Hessian are determined: the Schur complement
    of their block, scaled to a unit diagonal, has its smallest eigenvalue above ``_RIDGE`` (the test
    ``_newton_step`` makes for every round at once)."""
    m = hessian.shape[0] - k
    style_block, cross = hessian[m:, m:], hessian[:m, m:]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        try:
            schur = style_block - cross.T @ np.linalg.solve(hessian[:m, :m], cross) if m else style_block.copy()
        except np.linalg.LinAlgError:
            return False
        scale = np.sqrt(np.diag(style_block))
        schur = schur / np.outer(scale, scale)
    return bool(np.all(np.isfinite(schur)) and np.linalg.eigvalsh(schur)[0] > _RIDGE)


def _newton_logits(n_models: int, i, j, battles, score, pinned: int) -> np.ndarray | None:
    """``_newton`` on pair totals from θ = 0: the maximum-likelihood θ, or None."""
    return _newton(n_models, i, j, battles, score, pinned)


def _fit_parameters(n_models: int, i, j, battles, score, pinned: int, start: np.ndarray | None,
                    connected: bool = False, features: np.ndarray | None = None) -> np.ndarray:
    """Maximum-likelihood [θ, γ] (θ in natural-log odds units, θ[pinned] = 0; γ per style column).

    Newton's method first (``_newton``) when ``connected`` (every model is linked to the others by
    battles, ``_check_connected``) or when a ``start`` is given (a bootstrap round); L-BFGS-B with θ
    within the bounds does the rest (a model that won or lost everything, a round that left the battle
    graph in pieces).
    """
    from scipy import optimize

    if connected or start is not None:
        parameters = _newton(n_models, i, j, battles, score, pinned, features, start)
        if parameters is not None:
            return parameters
    k = 0 if features is None else features.shape[1]
    free = np.array([m for m in range(n_models) if m != pinned], dtype=np.int64)
    scale = max(float(battles.sum()), 1.0)  # keeps the gradient near 1 whatever the battle count

    def negative_log_likelihood(x: np.ndarray) -> tuple[float, np.ndarray]:
        parameters = np.zeros(n_models + k)
        parameters[free] = x[:len(free)]
        parameters[n_models:] = x[len(free):]
        d = _linear_predictor(parameters, n_models, i, j, features)
        # score·log σ(d) + (battles − score)·log σ(−d)  =  score·d − battles·log(1 + e^d)
        value = float(np.sum(battles * np.logaddexp(0.0, d) - score * d)) / scale
        residual = (battles / (1.0 + np.exp(-d)) - score) / scale
        gradient = np.bincount(i, weights=residual, minlength=n_models) - np.bincount(j, weights=residual, minlength=n_models)
        if k:
            return value, np.concatenate([gradient[free], np.einsum("rk,r->k", features, residual)])
        return value, gradient[free]

    if start is None:
        x0 = np.zeros(len(free) + k)
    else:
        x0 = np.concatenate([start[free] - start[pinned], start[n_models:]])
    bounds = [(-RATING_BOUND_LOGITS, RATING_BOUND_LOGITS)] * len(free) + [(None, None)] * k

    def converged(x: np.ndarray) -> bool:
        _, gradient = negative_log_likelihood(x)
        interior = np.concatenate([np.abs(x[:len(free)]) < RATING_BOUND_LOGITS - 1e-6, np.ones(k, dtype=bool)])
        return not interior.any() or np.max(np.abs(gradient[interior])) <= 1e-6

    # A warm start far from a bounded optimum (a bootstrap round in which a model lost everything) can stop
    # L-BFGS-B on a flat stretch short of it: go on from where it stopped, then from zero, before giving up.
    result = None
    for attempt in range(3):
        start_x = x0 if attempt == 0 else result.x if attempt == 1 else np.zeros_like(x0)
        result = optimize.minimize(negative_log_likelihood, start_x, jac=True, method="L-BFGS-B", bounds=bounds,
                                   options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-11, "maxcor": 30})
        if converged(result.x):
            break
    else:
        raise RuntimeError(f"Bradley–Terry fit did not converge: {result.message}")
    parameters = np.zeros(n_models + k)
    parameters[free] = result.x[:len(free)]
    parameters[n_models:] = result.x[len(free):]
    return parameters


def _fit_logits(n_models: int, i, j, battles, score, pinned: int, start: np.ndarray | None,
                connected: bool = False) -> np.ndarray:
    """Maximum-likelihood log-strengths θ on pair totals (``_fit_parameters`` without style columns)."""
    return _fit_parameters(n_models, i, j, battles, score, pinned, start, connected)


def _ratings_from_logits(theta: np.ndarray, models: list[str], anchor: str | None,
                         scale: float, base: float, init: float) -> np.ndarray:
    ratings = init + theta * scale / math.log(base)
    if anchor is None:
        return ratings - ratings.mean() + init
    return ratings - ratings[models.index(anchor)] + init


@one_blas_thread
def fit_bradley_terry(counts: pd.DataFrame, weights: Mapping[str, float] | None = None, anchor: str | None = None,
                      scale: float = SCALE, base: float = BASE, init: float = INIT_RATING) -> pd.Series:
    """Maximum-likelihood Bradley–Terry ratings on the Elo scale, one per model (index: model).

    ``counts`` is ``pair_counts`` output. Ties are half a win for each side; each judgment counts
    ``weights[verdict]`` times (default 1). With ``anchor`` its rating is exactly ``init``, otherwise
    the mean rating is ``init``. Self-battles are ignored. Raises ValueError when a model is not
    connected to the anchor (or to the others) through battles, or when there is no battle at all.
    """
    ratings, _ = _fit(counts, weights, anchor, scale, base, init)
    return ratings


def _fit(counts, weights, anchor, scale, base, init):
    cells = _Cells(counts, weights or unit_weights())
    if not cells.models:
        raise ValueError("no battles between two different models")
    if anchor is not None and anchor not in cells.models:
        raise ValueError(f"anchor {anchor!r} has no battle against another model")
    i, j, battles, score = cells.pair_totals(cells.judgments)
    _check_connected(cells.models, i, j, anchor)
    pinned = cells.models.index(anchor) if anchor is not None else 0
    theta = _fit_logits(len(cells.models), i, j, battles, score, pinned, None, connected=True)
    ratings = _ratings_from_logits(theta, cells.models, anchor, scale, base, init)
    return pd.Series(ratings, index=cells.models, name="rating"), (cells, theta, pinned)


@one_blas_thread
def bootstrap_ratings(counts: pd.DataFrame, weights: Mapping[str, float] | None = None, anchor: str | None = None,
                      rounds: int = 100, seed: int = 0, scale: float = SCALE, base: float = BASE,
                      init: float = INIT_RATING, batched: bool = True) -> pd.DataFrame:
    """Ratings refitted on ``rounds`` resamples of the judgments one by one: one row per round, one column per model.

    For battles without prompts (``rating_table`` resamples prompts when it has them). Each round draws as
    many judgments as there are, with replacement (a multinomial over the pair-and-verdict cells), using
    ``numpy.random.default_rng(seed)``; weights apply after the draw. A model that drew no battle in a
    round keeps its full-data rating in that round. The rounds are fitted all at once (``_newton_rounds``,
    the cells in the place of prompts), those it cannot fit one by one (all of them with ``batched=False``).
    """
    from scipy.sparse import coo_matrix

    _, (cells, theta, pinned) = _fit(counts, weights, anchor, scale, base, init)
    rng = np.random.default_rng(seed)
    total = int(cells.judgments.sum())
    shares = cells.judgments / total
    if rounds * len(shares) > _MAX_BATCHED_DRAWS:  # every round's draw of every cell would not fit: one at a time
        batched = False
    draws = rng.multinomial(total, shares, size=rounds).astype(float) if batched else None  # = `rounds` calls
    n = len(cells.models)
    lo, hi = np.minimum(cells.a, cells.b), np.maximum(cells.a, cells.b)
    pairs, pair = np.unique(lo * n + hi, return_inverse=True)
    lo_score = cells.weight * np.where(cells.a == lo, cells.a_score, 1.0 - cells.a_score)
    shape, cell = (len(pairs), len(cells.a)), np.arange(len(cells.a))
    if batched:
        rows = _RoundRows(n, pairs // n, pairs % n, None, coo_matrix((cells.weight, (pair, cell)), shape=shape),
                          coo_matrix((lo_score, (pair, cell)), shape=shape), draws)
        thetas, fitted = _newton_rounds(rows, pinned, theta)
    else:
        thetas, fitted = np.zeros((rounds, n)), np.zeros(rounds, dtype=bool)
    for r in np.flatnonzero(~fitted):
        drawn = draws[r] if batched else rng.multinomial(total, shares).astype(float)
        i, j, battles, score = cells.pair_totals(drawn)
        thetas[r] = _fit_logits(n, i, j, battles, score, pinned, theta)
    return pd.DataFrame([_ratings_from_logits(t, cells.models, anchor, scale, base, init) for t in thetas],
                        columns=cells.models)


# --- style control ------------------------------------------------------------------------------

STYLE_FEATURES = ("tokens", "headers", "lists", "bold")
CONTROLS: dict[str, tuple[str, ...]] = {
    "none": (),
    "style": STYLE_FEATURES,
    "length": ("tokens",),
    "markdown": ("headers", "lists", "bold"),
}
STYLE_COLUMNS = ["source", "model", "item_id", *STYLE_FEATURES]

_CODE_BLOCK = re.compile(r"```[^`]*```")
_HEADER = re.compile(r"^#{1,6}\s", re.MULTILINE)
_LIST_ITEM = re.compile(r"^\s*(?:\d+\.|[-*+])\s", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")
# A token: one Han, kana or Hangul-syllable character (scripts written without spaces between words, or
# whose syllables a subword tokenizer splits), a run of other letters or digits, or one other visible sign.
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]|[^\W\u3040-\u30ff\u3400-\u4dbf"
                    r"\u4e00-\u9fff\uac00-\ud7af]+|[^\w\s]")


def answer_style(text: str | None) -> dict[str, int]:
    """The style counts of one answer: ``tokens``, ``headers``, ``lists``, ``bold`` (all 0 for no text).

    Markdown is counted as Arena-Hard counts it (its ``add_markdown_info``), after removing fenced code
    blocks (from a ````` to the next, no backtick inside): ``headers`` = lines starting with 1–6 ``#``
    and a white-space character; ``lists`` = lines starting (after optional indentation) with
    ``<digits>.`` or ``-``/``*``/``+`` and a white-space character, ordered and unordered together;
    ``bold`` = ``**text**`` and ``__text__`` spans within one line. ``tokens`` counts the whole answer,
    code included: every Han, kana or Hangul-syllable character is one token, every other run of
    letters, digits or ``_`` is one, and every other visible sign is one. (Arena-Hard counts OpenAI
    ``o200k`` tokens; the feature is a ratio of the two answers' counts, so what matters is that both
    answers are counted alike.)
    """
    if not text:
        return dict.fromkeys(STYLE_FEATURES, 0)
    prose = _CODE_BLOCK.sub("", text)
    return {"tokens": len(_TOKEN.findall(text)), "headers": len(_HEADER.findall(prose)),
            "lists": len(_LIST_ITEM.findall(prose)), "bold": len(_BOLD.findall(prose))}


def _with_style(battles: pd.DataFrame, style: pd.DataFrame, features: Sequence[str]) -> tuple[pd.DataFrame, str]:
    """Battles with ``<feature>_a`` / ``<feature>_b`` columns; battles whose two answers do not both have
    style counts are left out, and the returned note says how many and whose."""
    if "prompt" not in battles.columns:
        raise ValueError("style control needs the prompt of every battle (battles_from_judgments(with_prompt=True))")
    counts = style.drop_duplicates(["model", "item_id"]).rename(columns={"item_id": "prompt"})
    frame = battles.astype({"model_a": str, "model_b": str, "prompt": str}).reset_index(drop=True)
    for side in ("a", "b"):
        side_counts = counts[["model", "prompt", *features]].rename(
            columns={"model": f"model_{side}", **{f: f"{f}_{side}" for f in features}})
        frame = frame.merge(side_counts.astype({f"model_{side}": str, "prompt": str}), how="left",
                            on=[f"model_{side}", "prompt"])
    complete = frame[[f"{f}_{s}" for f in features for s in "ab"]].notna().all(axis=1)
    note = ""
    if not complete.all():
        lacking = frame[~complete]
        models = sorted(set(lacking["model_a"]) | set(lacking["model_b"]))
        note = (f"{int((~complete).sum())} of {len(frame)} battles left out (no answer style); "
                f"they involve {models[:10]}")
    return frame[complete].reset_index(drop=True), note


class _BattleRows:
    """One entry per battle (self-battles and incomplete rows left out), models numbered like ``_Cells``."""

    def __init__(self, battles: pd.DataFrame, weights: Mapping[str, float], models: list[str]):
        frame = battles[battles[BATTLE_COLUMNS].notna().all(axis=1)]
        # Integer codes, each distinct name looked up once (a categorical's strings are not touched per row).
        # A model outside ``models`` only met itself: its battles are self-battles, left out here.
        a, b = (self._codes(frame[column], models) for column in ("model_a", "model_b"))
        other = a != b
        self.frame = frame[other].reset_index(drop=True)
        self.a, self.b = a[other], b[other]
        verdict = self._codes(self.frame["verdict"], list(CANONICAL_VERDICTS))
        self.weight = np.array([float(weights.get(v, np.nan)) for v in CANONICAL_VERDICTS])[verdict]
        self.win = self.weight * np.array([_A_SCORE[v] for v in CANONICAL_VERDICTS])[verdict]  # weighted wins of A
        if "prompt" in self.frame.columns:
            # Numbered in sorted order, so a seed draws the same prompts whatever order the rows came in (a
            # forced re-run writes the judgment partitions in another order than the first run did).
            self.prompt, _ = pd.factorize(self.frame["prompt"].astype(str), sort=True)
        else:  # no prompts: every battle is a prompt of its own
            self.prompt = np.arange(len(self.frame))

    @staticmethod
    def _codes(column: pd.Series, names: list[str]) -> np.ndarray:
        """Position of each value's string in ``names`` (-1 when absent)."""
        codes, values = _sorted_codes(column)
        lookup = {name: k for k, name in enumerate(names)}
        return np.array([lookup.get(v, -1) for v in values] + [-1], dtype=np.int64)[codes]

    def style_columns(self, features: Sequence[str], anchor_code: int | None) -> tuple[np.ndarray, list[str]]:
        """Standardized style differences, one column per feature that varies (and the names of those).

        Per battle: (A's count − B's count) / (A's count + B's count + 1), turned to the anchor's side when
        the anchor plays B (Arena-Hard writes every battle as baseline against candidate); centred on the
        weighted mean and divided by the weighted standard deviation over the battles (weights as in the
        fit, A>>B counting 3 times with Arena-Hard's weights), then turned back to A's side.
        """
        columns, names = [], []
        side = np.where(self.b == anchor_code, -1.0, 1.0) if anchor_code is not None else np.ones(len(self.a))
        for feature in features:
            a, b = (self.frame[f"{feature}_{s}"].to_numpy(dtype=float) for s in "ab")
            oriented = side * (a - b) / (a + b + 1.0)
            mean = np.average(oriented, weights=self.weight)
            std = math.sqrt(np.average((oriented - mean) ** 2, weights=self.weight))
            if std == 0:  # the same difference in every battle: nothing to separate from the ratings
                continue
            columns.append(side * (oriented - mean) / std)
            names.append(feature)
        return np.column_stack(columns) if columns else np.zeros((len(self.a), 0)), names


    def by_pair_and_prompt(self, n_models: int, features: np.ndarray) -> tuple[np.ndarray, ...]:
        """The battles summed per (pair of models, prompt), the lower-numbered model as A: (i, j, weighted
        battles, weighted wins of i, prompt, style columns). Both games of a prompt (and a strong verdict's
        three battles) become one row: the same answers give the same style differences, so the
        likelihood is unchanged and the fit reads half the rows."""
        lo, hi = np.minimum(self.a, self.b), np.maximum(self.a, self.b)
        a_is_lo = self.a == lo
        n_prompts = int(self.prompt.max()) + 1
        key = (lo * n_models + hi) * n_prompts + self.prompt
        unique, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        battles = np.bincount(inverse, weights=self.weight, minlength=len(unique))
        wins = np.bincount(inverse, weights=np.where(a_is_lo, self.win, self.weight - self.win), minlength=len(unique))
        oriented = np.where(a_is_lo, 1.0, -1.0)[:, None] * features
        return lo[first], hi[first], battles, wins, self.prompt[first], oriented[first]


# --- every bootstrap round at once ---------------------------------------------------------------

# Elements (rows × rounds) of one block of rounds fitted together: 8 MB per work array (measured on
# ko-arena-hard: 2^18 to 2^21 within 15 %, 2^20 the fastest; smaller blocks pay more calls per element).
_BLOCK_ELEMENTS = 1 << 20
# A round is fitted when its Newton step moves no parameter by more than this (logits, ≈ 0.006 Elo); the
# step is still taken, and Newton's method converging quadratically, what is left is of the order of its
# square.
_STEP_TOLERANCE = 1e-2
_MAX_BATCHED_STEPS = 30
# Largest rounds × cells that bootstrap_ratings draws at once (8 bytes each: 128 MB); beyond, round by round.
_MAX_BATCHED_DRAWS = 1 << 24
# A style direction with less curvature than this, relative to the columns' own, is a ridge: collinear with
# the models in the round, or seen only in battles decided beyond doubt (a model at the bound, a column that
# separates the verdicts: curvature ~e^-20). On a ridge round, eigen-directions of the Hessian with less
# curvature than this times the largest take no step (_pseudo_inverse_step).
_RIDGE = 1e-6


class _RoundRows:
    """The rows of every bootstrap round's likelihood: pairs of models (no style columns) or (pair, prompt)
    (with them), sorted by pair. ``battles_by_prompt`` / ``wins_by_prompt`` (rows × prompts, sparse): the
    weighted battles and wins of i that each prompt brings to a row, so a round's rows are these times its
    draws of the prompts (``draws``: rounds × prompts)."""

    def __init__(self, n_models: int, i: np.ndarray, j: np.ndarray, features: np.ndarray | None,
                 battles_by_prompt, wins_by_prompt, draws: np.ndarray):
        from scipy.sparse import coo_matrix, vstack as sparse_vstack

        order = np.lexsort((j, i))
        i, j = i[order], j[order]
        self.n_models, self.k, self.i, self.j = n_models, 0 if features is None else features.shape[1], i, j
        self.features = None if features is None else np.ascontiguousarray(features[order])
        self.battles_by_prompt = battles_by_prompt.tocsr()[order]
        self.wins_by_prompt = wins_by_prompt.tocsr()[order]
        self.draws = draws.T.copy()  # prompts × rounds
        rows = len(i)
        new_pair = np.r_[True, (i[1:] != i[:-1]) | (j[1:] != j[:-1])] if rows else np.zeros(0, dtype=bool)
        self.pair = np.cumsum(new_pair) - 1
        self.pair_i, self.pair_j = i[new_pair], j[new_pair]
        self.rows_are_pairs = len(self.pair_i) == rows
        n_pairs = len(self.pair_i)
        self.pair_sum = coo_matrix((np.ones(rows), (self.pair, np.arange(rows))), shape=(n_pairs, rows)).tocsr()
        # pair -> models: +1 for i, -1 for j (the gradient); its absolute value sums the Hessian's diagonal
        pairs = np.arange(n_pairs)
        self.incidence = coo_matrix((np.r_[np.ones(n_pairs), -np.ones(n_pairs)],
                                     (np.r_[self.pair_i, self.pair_j], np.r_[pairs, pairs])),
                                    shape=(n_models, n_pairs)).tocsr()
        self.degree = abs(self.incidence)
        self.as_i = coo_matrix((np.ones(n_pairs), (self.pair_i, pairs)), shape=(n_models, n_pairs)).tocsr()
        self.as_j = coo_matrix((np.ones(n_pairs), (self.pair_j, pairs)), shape=(n_models, n_pairs)).tocsr()
        # Rows -> what the Hessian sums per pair: the curvature, then the curvature times each style column.
        self.curvature_sums = self.pair_sum
        if self.k:
            # each product of two style columns once (the Hessian's style block is symmetric)
            self.upper = np.triu_indices(self.k)
            self.products = np.ascontiguousarray((self.features[:, self.upper[0]] * self.features[:, self.upper[1]]).T)
            self.curvature_sums = sparse_vstack(
                [self.pair_sum, *(coo_matrix((self.features[:, c], (self.pair, np.arange(rows))), shape=(n_pairs, rows))
                                  for c in range(self.k))]).tocsr()
        self._buffers: tuple[np.ndarray, ...] = ()

    def weights(self, rounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Weighted battles and wins of i per row in these rounds (rows × rounds)."""
        chosen = self.draws[:, rounds]
        return self.battles_by_prompt @ chosen, self.wins_by_prompt @ chosen

    def buffers(self, rounds: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Three (rows × rounds) work arrays, kept between steps: allocating them anew each step (megabytes,
        fresh pages) cost more than the arithmetic."""
        if not self._buffers or self._buffers[0].shape[1] != rounds:
            self._buffers = tuple(np.empty((len(self.pair), rounds)) for _ in range(3))
        return self._buffers


def _newton_rounds(rows: _RoundRows, pinned: int, start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[θ, γ] of every round (rounds × parameters) by Newton's method on all rounds at once, from ``start``
    (θ[pinned] = 0); and which rounds got there (False: a battle graph in pieces, a singular Hessian, a step
    past the bound, no convergence — those rounds are for the per-round fit).

    The first step needs no pass over the rows: at ``start``, the same point for every round, a round's
    gradient and Hessian are its draws times each prompt's share of them, computed once.
    """
    n, k = rows.n_models, rows.k
    rounds = rows.draws.shape[1]
    start = start - np.concatenate([np.full(n, start[pinned]), np.zeros(k)])
    parameters = np.tile(start, (rounds, 1))
    fitted = np.zeros(rounds, dtype=bool)
    first_sums = _prompt_sums(rows, start)
    block = max(1, min(rounds, _BLOCK_ELEMENTS // max(len(rows.pair), 1)))
    for first in range(0, rounds, block):
        index = np.arange(first, min(first + block, rounds))
        battles, wins = rows.weights(index)
        pair_battles = battles if rows.rows_are_pairs else rows.pair_sum @ battles  # pairs × rounds
        played = (rows.degree @ pair_battles).T > 0  # rounds × n
        played[:, pinned] = False
        # A model that won (lost) every battle of the round has no finite optimum: it stays at the bound, as
        # the bounded per-round fit leaves it, and Newton's method fits the others.
        pair_wins = wins if rows.rows_are_pairs else rows.pair_sum @ wins
        model_battles = (rows.degree @ pair_battles).T
        model_wins = (rows.as_i @ pair_wins + rows.as_j @ (pair_battles - pair_wins)).T
        won_all = played & (model_wins >= model_battles * (1.0 - 1e-12))
        lost_all = played & (model_wins <= model_battles * 1e-12)
        current = parameters[index]
        current[:, :n][won_all] = RATING_BOUND_LOGITS
        current[:, :n][lost_all] = -RATING_BOUND_LOGITS
        bounded = won_all | lost_all
        played &= ~bounded
        free = np.concatenate([played, np.ones((len(index), k), dtype=bool)], axis=1)
        # A round whose battles leave a played model unconnected to the pinned one has no unique optimum.
        connected = _reaches_every_played_model(rows, pair_battles > 0, played, pinned)
        active = np.flatnonzero(connected)
        if not len(active):
            continue
        if not connected.all():
            battles, wins = battles[:, connected], wins[:, connected]
        sums = tuple(total @ rows.draws[:, index[active]] for total in first_sums)
        ridge = np.zeros(len(active), dtype=bool)  # rounds that step by the pseudo-inverse (``_newton_step``)
        for taken in range(_MAX_BATCHED_STEPS):
            step, solved, ridge = _newton_step(rows, sums, free[active], ridge,
                                               check_rank=taken == 0 or bounded[active].any())
            current[active] -= step
            inside = solved & np.all((np.abs(current[active, :n]) < RATING_BOUND_LOGITS) | ~free[active, :n], axis=1)
            done = inside & (np.max(np.abs(step), axis=1) <= _STEP_TOLERANCE)
            if taken == 0:  # the first step was taken at the start, not where a bounded model now stands
                done &= ~bounded[active].any(axis=1)
            fitted[index[active[done]]] = True
            still = inside & ~done
            if not still.any():
                break
            if not still.all():  # the rows of the rounds left, once, rather than at every step
                battles, wins, active, ridge = battles[:, still], wins[:, still], active[still], ridge[still]
            sums = _row_sums(rows, current[active], battles, wins)
        parameters[index] = current
    return parameters, fitted


def _reaches_every_played_model(rows: _RoundRows, linked: np.ndarray, played: np.ndarray, pinned: int) -> np.ndarray:
    """Per round: is every played model linked to the pinned one by pairs with battles (``linked``: pairs ×
    rounds)? Grows the set reached from the pinned model, all rounds at once, until it stops growing."""
    reached = np.zeros_like(played)
    reached[:, pinned] = True
    linked = linked.T  # rounds × pairs
    while True:
        touching = linked & (reached[:, rows.pair_i] | reached[:, rows.pair_j])
        grown = reached | ((rows.degree @ touching.T.astype(float)).T > 0)
        if np.array_equal(grown, reached):
            return np.all(reached | ~played, axis=1)
        reached = grown


def _prompt_sums(rows: _RoundRows, parameters: np.ndarray) -> tuple:
    """What ``_row_sums`` gives at ``parameters`` (one point for all rounds), per prompt (each × prompts):
    a round's sums are these times its draws."""
    n, k = rows.n_models, rows.k
    d = parameters[rows.i] - parameters[rows.j]
    if k:
        d = d + rows.features @ parameters[n:]
    p = 1.0 / (1.0 + np.exp(-d))
    residual = rows.battles_by_prompt.multiply(p[:, None]) - rows.wins_by_prompt  # rows × prompts
    curvature = rows.battles_by_prompt.multiply((p * (1.0 - p))[:, None]).tocsr()
    residual = residual.tocsr()
    sums = [rows.pair_sum @ residual, rows.curvature_sums @ curvature]
    if k:
        sums += [(residual.T @ rows.features).T, (curvature.T @ rows.products.T).T]
    return tuple(s.toarray() if hasattr(s, "toarray") else np.asarray(s) for s in sums)


def _row_sums(rows: _RoundRows, parameters: np.ndarray, battles: np.ndarray, wins: np.ndarray) -> tuple:
    """At each round's ``parameters`` (rounds × parameters), over its rows (``battles``/``wins``: rows ×
    rounds): the residual (battles·σ(d) − wins) summed per pair, the curvature (battles·σ(d)·(1 − σ(d)))
    summed per pair and, with style columns, per pair times each column, the residual times the columns and
    the curvature times their products (each × rounds). All in place in the rows' work arrays."""
    n, k = rows.n_models, rows.k
    transposed = parameters.T  # parameters × rounds
    difference = transposed[rows.pair_i] - transposed[rows.pair_j]  # pairs × rounds
    p, residual, curvature = rows.buffers(parameters.shape[0])
    if rows.rows_are_pairs:
        p[...] = difference
    else:
        np.take(difference, rows.pair, axis=0, out=p)
    if k:
        np.matmul(rows.features, transposed[n:], out=residual)
        p += residual
    np.negative(p, out=p)
    np.exp(p, out=p)
    p += 1.0
    np.reciprocal(p, out=p)
    np.multiply(battles, p, out=residual)
    np.multiply(residual, p, out=curvature)
    np.subtract(residual, curvature, out=curvature)
    residual -= wins
    if rows.rows_are_pairs:
        sums = [residual.copy(), curvature.copy()]
    else:
        sums = [rows.pair_sum @ residual, rows.curvature_sums @ curvature]
    if k:
        sums += [rows.features.T @ residual, rows.products @ curvature]
    return tuple(sums)


def _newton_step(rows: _RoundRows, sums: tuple, free: np.ndarray, ridge: np.ndarray,
                 check_rank: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One Newton step per round (rounds × parameters; 0 for a fixed parameter: the pinned model, a model
    without battles in the round or at the bound) from ``_row_sums``, whether it could be solved, and
    ``ridge`` (rounds whose steps use the pseudo-inverse) updated.

    A round whose style columns are collinear with the models (a few drawn prompts whose style differences
    are the same for every battle), or whose only information about a style direction comes from battles
    decided beyond doubt (a judge whose verdict a style column separates, a model at the bound), has no
    single optimum: the likelihood is flat, or rises without end by amounts below rounding, along some
    direction. Such a round steps by the pseudo-inverse of its Hessian, leaving out the directions whose
    curvature is below ``_RIDGE`` times the largest: it moves only where the round's battles say
    something, so on an exact ridge it stops at the optimum nearest (Euclidean) to the full-data fit
    it started from. (One fit per round, L-BFGS-B, stops wherever its tolerance is met along such a
    direction: a warm start moved by 1e-9 logits moved the demo's interval bounds by up to 24 Elo.)
    ``check_rank``: look for such rounds, on the style block's Schur complement scaled to a unit diagonal
    (its smallest eigenvalue below ``_RIDGE``); at the first step, and at every step of a round with a
    model at the bound (its battles' curvature vanishes there). A round found once stays in ``ridge``."""
    n, k = rows.n_models, rows.k
    pair_residual, curvature_sums = sums[0], sums[1]
    count = pair_residual.shape[1]
    n_pairs = len(rows.pair_i)
    pair_curvature = curvature_sums[:n_pairs]
    gradient = np.empty((count, n + k))
    gradient[:, :n] = (rows.incidence @ pair_residual).T
    hessian = np.zeros((count, n + k, n + k))
    hessian[:, rows.pair_i, rows.pair_j] = -pair_curvature.T
    hessian[:, rows.pair_j, rows.pair_i] = -pair_curvature.T
    diagonal = np.arange(n)
    hessian[:, diagonal, diagonal] = (rows.degree @ pair_curvature).T
    if k:
        gradient[:, n:] = sums[2].T
        cross = np.stack([rows.incidence @ curvature_sums[n_pairs * (c + 1):n_pairs * (c + 2)] for c in range(k)],
                         axis=2)  # n × rounds × k
        hessian[:, :n, n:] = cross.transpose(1, 0, 2)
        hessian[:, n:, :n] = cross.transpose(1, 2, 0)
        first, second = n + rows.upper[0], n + rows.upper[1]
        hessian[:, first, second] = sums[3].T
        hessian[:, second, first] = sums[3].T
    gradient *= free
    hessian *= free[:, :, None] & free[:, None, :]
    fixed = np.flatnonzero(~free.ravel())
    hessian.reshape(count, -1)[fixed // (n + k), (fixed % (n + k)) * (n + k + 1)] = 1.0
    ridge = ridge.copy()
    if check_rank and k:
        theta_block, cross = hessian[:, :n, :n], hessian[:, :n, n:]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            try:
                schur = hessian[:, n:, n:] - cross.transpose(0, 2, 1) @ np.linalg.solve(theta_block, cross)
                scale = np.sqrt(np.diagonal(hessian[:, n:, n:], axis1=1, axis2=2))
                schur = schur / (scale[:, :, None] * scale[:, None, :])
                full_rank = np.all(np.isfinite(schur), axis=(1, 2))
                schur[~full_rank] = np.eye(k)
                ridge |= ~(full_rank & (np.linalg.eigvalsh(schur)[:, 0] > _RIDGE))
            except np.linalg.LinAlgError:
                ridge[:] = True
    solved = np.ones(count, dtype=bool)
    step = np.zeros_like(gradient)
    regular = np.flatnonzero(~ridge)
    # All rounds regular (ko-arena-hard: every round, every step): no copy of the Hessians (50 MB there).
    chosen = (hessian, gradient) if len(regular) == count else (hessian[regular], gradient[regular])
    if len(regular):
        try:
            step[regular] = np.linalg.solve(chosen[0], chosen[1][:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            for r in regular:
                try:
                    step[r] = np.linalg.solve(hessian[r], gradient[r])
                except np.linalg.LinAlgError:
                    solved[r] = False
    if ridge.any():
        step[ridge] = _pseudo_inverse_step(hessian[ridge], gradient[ridge])
    solved &= np.all(np.isfinite(step), axis=1)
    step[~solved] = 0.0
    return step, solved, ridge


def _pseudo_inverse_step(hessian: np.ndarray, gradient: np.ndarray) -> np.ndarray:
    """H⁺g per round, H⁺ leaving out the eigen-directions whose curvature is at most ``_RIDGE`` times the
    largest (the fixed parameters' unit rows have no gradient, so they take no step either way)."""
    values, vectors = np.linalg.eigh(hessian)
    keep = values > _RIDGE * values[:, -1:]
    inverse = np.divide(1.0, values, out=np.zeros_like(values), where=keep)
    return np.einsum("rpq,rq->rp", vectors, inverse * np.einsum("rqp,rq->rp", vectors, gradient))


def _bootstrap_by_prompt(rows: _BattleRows, n_models: int, pinned: int, start: np.ndarray, rounds: int, seed: int,
                         features: np.ndarray | None, batched: bool = True) -> np.ndarray:
    """θ of every round (rounds × models): each round draws as many prompts as there are, with replacement,
    and every battle of a drawn prompt counts once per draw.

    All rounds are fitted together (``_newton_rounds``, from the full-data fit); a round that it cannot fit
    (a model that won or lost everything, a battle graph in pieces) is fitted alone, as every round was
    before (``_fit_parameters`` from the full-data fit: Newton, then L-BFGS-B within the bounds; all rounds
    with ``batched=False``, the reference the batched fit is measured against). The draws are the ones a
    round-by-round loop makes: ``multinomial(..., size=rounds)`` gives the same numbers as ``rounds`` calls.
    """
    from scipy.sparse import coo_matrix

    rng = np.random.default_rng(seed)
    n_prompts = int(rows.prompt.max()) + 1 if len(rows.prompt) else 0
    draws = rng.multinomial(n_prompts, np.full(n_prompts, 1.0 / n_prompts), size=rounds).astype(float)
    if features is None:  # summed per pair of models in each round: the fit's cost does not grow with the battles
        lo, hi = np.minimum(rows.a, rows.b), np.maximum(rows.a, rows.b)
        pairs, pair = np.unique(lo * n_models + hi, return_inverse=True)
        lo_win = np.where(rows.a == lo, rows.win, rows.weight - rows.win)
        i, j, row, weight, wins = pairs // n_models, pairs % n_models, pair, rows.weight, lo_win
        prompt = rows.prompt
    else:
        i, j, weight, wins, prompt, features = rows.by_pair_and_prompt(n_models, features)
        row = np.arange(len(i))
    shape = (len(i), n_prompts)
    round_rows = _RoundRows(n_models, i, j, features, coo_matrix((weight, (row, prompt)), shape=shape),
                            coo_matrix((wins, (row, prompt)), shape=shape), draws)
    if batched:
        parameters, fitted = _newton_rounds(round_rows, pinned, start)
    else:
        parameters, fitted = np.zeros((rounds, len(start))), np.zeros(rounds, dtype=bool)
    for r in np.flatnonzero(~fitted):
        battles, won = (column[:, 0] for column in round_rows.weights(np.array([r])))
        kept = battles > 0
        parameters[r] = _fit_parameters(n_models, round_rows.i[kept], round_rows.j[kept], battles[kept], won[kept],
                                        pinned, start, features=None if features is None else round_rows.features[kept])
    return parameters[:, :n_models]


def upper_bound_ranks(lower: Sequence[float], upper: Sequence[float]) -> list[int | None]:
    """Each model's rank by its upper bound, as Chatbot Arena ranks: 1 + the number of models whose lower bound is
    above this model's upper bound (clearly better than it). None for all when an interval is missing.

    Two models share a rank only when neither is clearly above the other: if A's lower bound is above B's upper
    bound, every model clearly above A is clearly above B too, and so is A, so B's rank is at least A's + 1. A rank
    never chains the way overlap tiers did (a tier could span models far apart through the ones between them)."""
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    if np.isnan(lower).any() or np.isnan(upper).any():
        return [None] * len(lower)
    # For each upper bound, how many lower bounds lie strictly above it: sorted search, not a matrix of pairs.
    ordered = np.sort(lower)
    above = len(ordered) - np.searchsorted(ordered, upper, side="right")
    return [int(1 + n) for n in above]


RATING_COLUMNS = [
    "model", "rating", "rating_lower", "rating_upper", "win_rate", "win_rate_lower", "win_rate_upper",
    "judgments", "weighted_battles", "wins", "ties", "losses", "at_bound", "rank", "control", "style_coefficients",
]  # fmt: skip


@one_blas_thread
def rating_table(battles: pd.DataFrame, anchor: str | None = None, weights: Mapping[str, float] | None = None,
                 rounds: int = 1000, quantiles: Sequence[float] = (0.025, 0.975), seed: int = 0,
                 scale: float = SCALE, base: float = BASE, init: float = INIT_RATING, control: str = "none",
                 style: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per model: rating with bootstrap interval and tier, win rate against the anchor, counts.

    rating: the maximum-likelihood fit (``fit_bradley_terry`` for ``control='none'``); with another
    ``control`` (``CONTROLS``), the Bradley–Terry fit with those style columns (``_BattleRows.style_columns``)
    fitted jointly, on the battles whose two answers have counts in ``style`` (``STYLE_COLUMNS``, matched on
    model and prompt); ``style_coefficients`` then gives the fitted γ per feature (log-odds per standard
    deviation of the difference, for A).

    rating_lower/upper: the ``quantiles`` of the bootstrap (NaN when ``rounds`` is 0). When the battles
    have a ``prompt`` column, each round resamples prompts and keeps all of a drawn prompt's battles together
    (``_bootstrap_by_prompt``); otherwise judgments one by one (``bootstrap_ratings``). Seeded with
    ``numpy.random.default_rng(seed)``: the same seed gives the same interval. rank: ``upper_bound_ranks``.

    win_rate: expected score against the anchor ×100 (the anchor's is 50); its interval maps the rating
    interval. Without an anchor the win-rate columns are NaN. judgments/wins/ties/losses count judgments
    from the model's side (self-battles excluded); weighted_battles applies the weights. at_bound: the
    rating stopped at the bound (won or lost everything; see the module docstring).
    """
    low, high = quantiles
    if not 0 <= low <= high <= 1:
        raise ValueError(f"quantiles must satisfy 0 <= low <= high <= 1, got {quantiles}")
    if control not in CONTROLS:
        raise ValueError(f"control must be one of {sorted(CONTROLS)}, got {control!r}")
    weights = weights or unit_weights()
    features = CONTROLS[control]
    if features:
        if style is None:
            raise ValueError(f"control {control!r} needs the answers' style counts")
        battles, _ = _with_style(battles, style, features)
    counts = pair_counts(battles)
    ratings, (cells, theta, pinned) = _fit(counts, weights, anchor, scale, base, init)
    n_models = len(cells.models)
    coefficients = None
    style_matrix = None
    if features or "prompt" in battles.columns:
        rows = _BattleRows(battles, weights, cells.models)
    if features:
        style_matrix, names = rows.style_columns(features, pinned if anchor is not None else None)
        i, j, battle_weight, wins, _, oriented = rows.by_pair_and_prompt(n_models, style_matrix)
        parameters = _fit_parameters(n_models, i, j, battle_weight, wins, pinned, None, connected=True,
                                     features=oriented)
        theta, gamma = parameters[:n_models], parameters[n_models:]
        ratings = pd.Series(_ratings_from_logits(theta, cells.models, anchor, scale, base, init), index=cells.models)
        coefficients = " ".join(f"{name}={value:.4f}" for name, value in zip(names, gamma))

    if rounds > 0 and (features or "prompt" in battles.columns):
        start = theta if not features else parameters
        thetas = _bootstrap_by_prompt(rows, n_models, pinned, start, rounds, seed, style_matrix)
        samples = pd.DataFrame([_ratings_from_logits(t, cells.models, anchor, scale, base, init) for t in thetas],
                               columns=cells.models)
        lower, upper = samples.quantile(low), samples.quantile(high)
    elif rounds > 0:
        samples = bootstrap_ratings(counts, weights, anchor, rounds, seed, scale, base, init)
        lower, upper = samples.quantile(low), samples.quantile(high)
    else:
        lower = upper = pd.Series(np.nan, index=ratings.index)

    table = pd.DataFrame({"model": ratings.index, "rating": ratings.to_numpy(),
                          "rating_lower": lower.to_numpy(), "rating_upper": upper.to_numpy()})
    if anchor is not None:
        anchor_rating = ratings[anchor]
        for column, source in (("win_rate", "rating"), ("win_rate_lower", "rating_lower"),
                               ("win_rate_upper", "rating_upper")):
            table[column] = [100.0 * elo_win_probability(r, anchor_rating, scale, base) for r in table[source]]
    else:
        table["win_rate"] = table["win_rate_lower"] = table["win_rate_upper"] = np.nan

    table = table.merge(_model_counts(cells), on="model", how="left")
    bounded = np.abs(theta - theta[pinned]) >= RATING_BOUND_LOGITS - 1e-6
    table["at_bound"] = table["model"].map(dict(zip(cells.models, bounded))).astype(bool)
    table["rank"] = pd.array(upper_bound_ranks(table["rating_lower"], table["rating_upper"]), dtype="Int64")
    table["control"] = control
    table["style_coefficients"] = coefficients
    return table[RATING_COLUMNS].sort_values("rating", ascending=False, ignore_index=True)


def _model_counts(cells: _Cells) -> pd.DataFrame:
    """Judgments, weighted battles, wins, ties and losses per model, from its own side."""
    rows = []
    for side, index, win_score in (("a", cells.a, 1.0), ("b", cells.b, 0.0)):
        rows.append(pd.DataFrame({
            "model": [cells.models[k] for k in index],
            "judgments": cells.judgments,
            "weighted_battles": cells.judgments * cells.weight,
            "wins": np.where(cells.a_score == win_score, cells.judgments, 0.0),
            "ties": np.where(cells.a_score == 0.5, cells.judgments, 0.0),
            "losses": np.where(cells.a_score == 1.0 - win_score, cells.judgments, 0.0),
        }))
    summed = pd.concat(rows).groupby("model", as_index=False).sum()
    return summed.astype({"judgments": "int64", "wins": "int64", "ties": "int64", "losses": "int64"})


# --- AlpacaEval-style win rate on graded preferences --------------------------------------------

def preference_win_rate(preferences: Sequence[float | None]) -> dict:
    """AlpacaEval's head-to-head summary of preferences (1 = baseline better, 2 = model better).

    A preference may be graded (any value in [1, 2], e.g. a judge's probability); 0 is the old
    encoding of a draw and means 1.5. Missing preferences (None/NaN) are failures: counted in
    ``n_failed``, left out of everything else. With x = preference − 1:
    win_rate = 100·mean(x); standard_error = 100·(sample standard deviation of x)/√n (the standard
    error of the mean per-item preference); n_wins / n_wins_base = items with x above / below 0.5;
    n_draws = items with preference exactly 1.5 (or 0); discrete_win_rate = 100·(n_wins +
    n_draws/2)/n. Raises ValueError for a value outside {0} ∪ [1, 2].
    """
    values = []
    failed = 0
    for value in preferences:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            failed += 1
            continue
        value = float(value)
        if value == 0.0:
            value = 1.5
        if not 1.0 <= value <= 2.0:
            raise ValueError(f"preference {value} is outside [1, 2] (0 means a draw)")
        values.append(value - 1.0)
    x = np.asarray(values, dtype=float)
    n = len(x)
    draws = int(np.sum(x == 0.5))
    wins, wins_base = int(np.sum(x > 0.5)), int(np.sum(x < 0.5))
    return {
        "win_rate": 100.0 * float(x.mean()) if n else float("nan"),
        "standard_error": 100.0 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan"),
        "n_wins": wins,
        "n_wins_base": wins_base,
        "n_draws": draws,
        "n_total": n,
        "n_failed": failed,
        "discrete_win_rate": 100.0 * (wins + draws / 2) / n if n else float("nan"),
    }


# --- tables per source and judge (what the metric assets write) ---------------------------------

def weights_label(weights: Mapping[str, float]) -> str:
    return " ".join(f"{verdict}={weights[verdict]:g}" for verdict in CANONICAL_VERDICTS)


def ratings_by_source(judgments: pd.DataFrame, anchors: Mapping[str, str], weights: Mapping[str, Mapping[str, float]],
                      reuse_single_game: set[str], rounds: int = 1000, quantiles: Sequence[float] = (0.025, 0.975),
                      seed: int = 0, controls: Sequence[str] = ("none",),
                      style: pd.DataFrame | None = None) -> tuple[pd.DataFrame, list[str]]:
    """``rating_table`` for every (source, judge) of ``judgments`` whose source has an anchor, and every control.

    ``anchors``: source -> the baseline all its candidates were compared with (the anchor);
    ``weights``: source -> outcome weights (unit weights when absent); ``reuse_single_game``:
    sources scored with Arena-Hard's single-game rule (see ``battles_from_judgments``); ``controls``:
    names in ``CONTROLS``; ``style``: ``STYLE_COLUMNS`` rows, matched on source, model and item (a source
    without any is rated without control only). Intervals come from the bootstrap over prompts (items).
    Returns the table and, for every (source, judge, control) that could not be rated or left battles
    out, a line saying why.
    """
    unknown = sorted(set(controls) - set(CONTROLS))
    if unknown:
        raise ValueError(f"unknown style controls {unknown}; expected some of {list(CONTROLS)}")
    tables, problems = [], []
    style = style if style is not None else pd.DataFrame(columns=STYLE_COLUMNS)
    for (source, judge), rows in judgments.groupby(["source", "judge"]):
        if source not in anchors:
            continue
        anchor = anchors[source]
        source_weights = weights.get(source) or unit_weights()
        reuse = source in reuse_single_game
        battles = battles_from_judgments(rows, anchor, reuse_single_game=reuse, with_prompt=True)
        source_style = style[style["source"] == source]
        for control in controls:
            if CONTROLS[control]:
                if source_style.empty:
                    problems.append(f"{source} / {judge} / {control}: no answer style for this source")
                    continue
                _, left_out = _with_style(battles, source_style, CONTROLS[control])
                if left_out:
                    problems.append(f"{source} / {judge} / {control}: {left_out}")
            try:
                table = rating_table(battles, anchor=anchor, weights=source_weights, rounds=rounds,
                                     quantiles=quantiles, seed=seed, control=control, style=source_style)
            except (ValueError, RuntimeError) as error:
                # RuntimeError: no maximum to find — under a style control a judge whose verdicts the style columns
                # separate perfectly sends γ to infinity. Reported as not rated; the other controls still stand.
                problems.append(f"{source} / {judge} / {control}: {error}")
                continue
            tables.append(table.assign(source=source, judge=judge, anchor=anchor,
                                       outcome_weights=weights_label(source_weights),
                                       single_game_rule="reuse_first" if reuse else "none", bootstrap_rounds=rounds,
                                       quantile_low=quantiles[0], quantile_high=quantiles[1], seed=seed,
                                       bootstrap_unit="prompt"))
    columns = ["source", "judge", *RATING_COLUMNS, "anchor", "outcome_weights", "single_game_rule",
               "bootstrap_rounds", "quantile_low", "quantile_high", "seed", "bootstrap_unit"]
    if not tables:
        return pd.DataFrame(columns=columns), problems
    return pd.concat(tables, ignore_index=True)[columns], problems


WIN_RATE_COLUMNS = ["source", "judge", "model", "baseline", "win_rate", "standard_error", "n_wins", "n_wins_base",
                    "n_draws", "n_total", "n_failed", "discrete_win_rate"]


def win_rates_by_model(preferences: pd.DataFrame) -> pd.DataFrame:
    """``preference_win_rate`` per (source, judge, model, baseline) of ``interop_preferences`` rows."""
    rows = []
    for (source, judge, model, baseline), group in preferences.groupby(["source", "judge", "model", "baseline"]):
        values = [None if pd.isna(v) else float(v) for v in group["preference"]]
        rows.append({"source": source, "judge": judge, "model": model, "baseline": baseline,
                     **preference_win_rate(values)})
    return pd.DataFrame(rows, columns=WIN_RATE_COLUMNS)


# great-expectations suites (benchwright.quality.validate_frame) for the tables the ratings feed.
RATINGS_SUITE: list[dict] = [
    {"type": "columns_exist", "columns": ["source", "judge", *RATING_COLUMNS, "anchor"]},
    {"type": "column_not_null", "column": "rating"},
    *(between(c, 0, 100) for c in ("win_rate", "win_rate_lower", "win_rate_upper")),
    between("judgments", 0, None),
    {"type": "columns_unique", "columns": ["source", "judge", "control", "model"]},
]
WIN_RATES_SUITE: list[dict] = [
    {"type": "columns_exist", "columns": ["source", "judge", "model", "win_rate", "standard_error", "n_total"]},
    *(between(c, 0, 100) for c in ("win_rate", "discrete_win_rate")),
    between("standard_error", 0, None),
    {"type": "columns_unique", "columns": ["source", "judge", "model"]},
]
