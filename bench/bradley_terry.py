"""Benchmark: Bradley–Terry on aggregated pair counts vs a per-battle logistic regression, in one run.

1,000,000 synthetic battles among 50 models (true Elo ratings drawn once, ties 10 %, seeded). Both fits
maximise the same likelihood (a tie is half a win for each side, the anchor model fixed at 1000):

- ours: ``benchwright.ratings`` — sum the battles per (model_a, model_b, verdict), then fit on the
  ≤ 50·49·3 cells with scipy's L-BFGS-B;
- per battle: the logistic regression Chatbot Arena and Arena-Hard run (one row per battle, target 1 /
  0.5 / 0 for A win / tie / B win), fitted with the same scipy optimizer over all 1,000,000 rows. It is
  written with index arithmetic (logit = θ[a] − θ[b]), the cheapest per-battle form; a dense design
  matrix (what scikit-learn would be given) would need 400 MB and be slower still, so the ratio below
  is a lower bound. The per-battle fit runs on all battles, no subsample.

Prints both timings, the speed ratio and the largest rating difference (must be < 0.5 Elo).

    .venv/bin/python bench/bradley_terry.py [--battles 1000000] [--models 50] [--seed 0]
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
    args = parser.parse_args(argv)

    battles, _truth = synthetic_battles(args.battles, args.models, args.seed)
    anchor = "model-00"
    print(f"{len(battles):,} battles among {args.models} models ({(battles['verdict'] == 'A=B').mean():.1%} ties)")

    t0 = time.perf_counter()
    counts = ratings.pair_counts(battles)
    t1 = time.perf_counter()
    ours = ratings.fit_bradley_terry(counts, anchor=anchor)
    t2 = time.perf_counter()
    theirs = per_battle_fit(battles, anchor)
    t3 = time.perf_counter()

    aggregate_s, fit_s, per_battle_s = t1 - t0, t2 - t1, t3 - t2
    difference = (ours - theirs.reindex(ours.index)).abs().max()
    print(f"aggregated: {aggregate_s:.2f} s to count {len(counts):,} cells + {fit_s:.3f} s to fit = "
          f"{aggregate_s + fit_s:.2f} s")
    print(f"per battle: {per_battle_s:.2f} s")
    print(f"speed ratio, per battle / aggregated: {per_battle_s / (aggregate_s + fit_s):.1f}x overall, "
          f"{per_battle_s / fit_s:.0f}x for the fit alone")
    print(f"largest rating difference between the two fits: {difference:.6f} Elo (must be < 0.5)")
    assert difference < 0.5, "the aggregated and per-battle fits must agree within 0.5 Elo"


if __name__ == "__main__":
    main()
