"""Benchmark: Bradley–Terry on aggregated pair counts vs a per-battle logistic regression, in one run.

1,000,000 synthetic battles among 50 models (true Elo ratings drawn once, ties 10 %, seeded). Both fits
maximise the same likelihood (a tie is half a win for each side, the anchor model fixed at 1000):

- ours: ``benchwright.ratings`` — count the battles per (model_a, model_b, verdict) (one ``bincount``
  over the integer codes of the categorical columns), then fit on the ≤ 50·49·3 cells with scipy's
  L-BFGS-B and the analytic gradient;
- per battle: the logistic regression Chatbot Arena and Arena-Hard run (one row per battle, target 1 /
  0.5 / 0 for A win / tie / B win), fitted with the same scipy optimizer over all 1,000,000 rows. It is
  written with index arithmetic (logit = θ[a] − θ[b]), the cheapest per-battle form; a dense design
  matrix (what scikit-learn would be given) would need 400 MB and be slower still, so the ratio below
  is a lower bound. The per-battle fit runs on all battles, no subsample.

Both start from the same frame: the battles with categorical columns, the shape
``ratings.battles_from_judgments`` returns (turning the name strings into categories is printed
separately; it is shared work, like reading the battles).

Prints both timings, the speed ratio (target ≥ 100× including the counting) and the largest rating
difference (must be < 0.5 Elo).

    .venv/bin/python bench/bradley_terry.py [--battles 1000000] [--models 50] [--seed 0] [--repeat 3]
"""

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import optimize  # noqa: E402

from benchwright import ratings  # noqa: E402


def synthetic_battles(n_battles: int, n_models: int, seed: int) -> tuple[pd.DataFrame, dict[str, float]]:
    rng = np.random.default_rng(seed)
    names = np.array([f"model-{k:02d}" for k in range(n_models)])
    truth = rng.normal(1000, 200, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    p_a = 1 / (1 + 10 ** ((truth[b] - truth[a]) / 400))
    draw = rng.random(n_battles)
    verdict = np.where(draw < 0.1, "A=B", np.where(rng.random(n_battles) < p_a, "A>B", "B>A"))
    battles = pd.DataFrame({"model_a": names[a], "model_b": names[b], "verdict": verdict})
    return battles, dict(zip(names, truth))


def encoded(battles: pd.DataFrame) -> pd.DataFrame:
    """The battles as ``ratings.battles_from_judgments`` hands them over: categorical columns (each name
    hashed once, then integer codes). Both fits below start from this frame."""
    return battles.astype("category")


def per_battle_fit(battles: pd.DataFrame, anchor: str) -> pd.Series:
    """Logistic regression with one row per battle (the usual way), same likelihood and optimizer."""
    models = sorted(set(battles["model_a"]) | set(battles["model_b"]))
    index = {m: k for k, m in enumerate(models)}
    a = battles["model_a"].map(index).to_numpy()
    b = battles["model_b"].map(index).to_numpy()
    y = battles["verdict"].map({"A>B": 1.0, "A=B": 0.5, "B>A": 0.0}).to_numpy()
    pinned = index[anchor]
    free = np.array([k for k in range(len(models)) if k != pinned])
    n = len(y)

    def loss(x):
        theta = np.zeros(len(models))
        theta[free] = x
        d = theta[a] - theta[b]
        value = np.sum(np.logaddexp(0.0, d) - y * d) / n
        residual = (1 / (1 + np.exp(-d)) - y) / n
        grad = np.bincount(a, residual, len(models)) - np.bincount(b, residual, len(models))
        return value, grad[free]

    result = optimize.minimize(loss, np.zeros(len(free)), jac=True, method="L-BFGS-B",
                               options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-11})
    theta = np.zeros(len(models))
    theta[free] = result.x
    return pd.Series(1000 + theta * 400 / math.log(10), index=models)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--battles", type=int, default=1_000_000)
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each path; the best counts")
    args = parser.parse_args(argv)

    battles, _truth = synthetic_battles(args.battles, args.models, args.seed)
    anchor = "model-00"
    print(f"{len(battles):,} battles among {args.models} models ({(battles['verdict'] == 'A=B').mean():.1%} ties)")
    started = time.perf_counter()
    battles = encoded(battles)
    print(f"names encoded as categories in {time.perf_counter() - started:.2f} s (the input of both fits, timed in neither)")

    # Each path once on a small sample first (imports and first-call costs), then the best of --repeat
    # runs each: the machine is shared, and the aggregated path takes milliseconds.
    warm_up = battles.iloc[:10_000]
    per_battle_fit(warm_up, anchor)
    ratings.fit_bradley_terry(ratings.pair_counts(warm_up), anchor=anchor)
    aggregate_s = fit_s = per_battle_s = math.inf
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        counts = ratings.pair_counts(battles)
        t1 = time.perf_counter()
        ours = ratings.fit_bradley_terry(counts, anchor=anchor)
        t2 = time.perf_counter()
        theirs = per_battle_fit(battles, anchor)
        t3 = time.perf_counter()
        aggregate_s, fit_s, per_battle_s = min(aggregate_s, t1 - t0), min(fit_s, t2 - t1), min(per_battle_s, t3 - t2)
    difference = (ours - theirs.reindex(ours.index)).abs().max()
    print(f"aggregated: {1000 * aggregate_s:.1f} ms to count {len(counts):,} cells + {1000 * fit_s:.1f} ms to fit = "
          f"{1000 * (aggregate_s + fit_s):.1f} ms (best of {args.repeat})")
    print(f"per battle: {per_battle_s:.2f} s (best of {args.repeat})")
    print(f"speed ratio, per battle / aggregated: {per_battle_s / (aggregate_s + fit_s):.0f}x overall "
          f"(target 100x: {per_battle_s / (aggregate_s + fit_s) / 100:.2f} of it), {per_battle_s / fit_s:.0f}x for the fit alone")
    print(f"largest rating difference between the two fits: {difference:.6f} Elo (must be < 0.5)")
    assert difference < 0.5, "the aggregated and per-battle fits must agree within 0.5 Elo"


if __name__ == "__main__":
    main()
