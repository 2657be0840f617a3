"""Benchmark: MMMT-IF model comparisons at a hundred models (issue 30 item 3: ≤ 30 s).

The work of the `mmmt_if_model_comparisons` asset (ECDFs, stochastic dominance, one-sided Wilcoxon tests per
model pair and variant) on synthetic scored responses: `--models` models × 2 variants × `--chats` chats ×
`--turns` turns × 2 samples, PIF on a grid of quarters (ties and zeros, as real PIF has). With few paired
contexts (the full-size workload at `--scale 0.02` has ≤ 13) scipy's method="auto" runs its permutation test
over every sign flip, ≈ 0.4–2 s per call; we count the same flips at once. Timed in one run:

- ours: `ecdf`, `dominance` and `wilcoxon_pairs` over every pair;
- scipy: `scipy.stats.wilcoxon(method="auto")` on a sample of the same pairs, checked equal to ours, and its
  time per pair projected to every pair (running it on all 4,950 pairs would take hours).

    .venv/bin/python bench/model_comparisons.py [--models 100] [--chats 4] [--turns 3] [--scipy-sample 6]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy import stats

from _common import emit

TARGET_S = 30.0


def synthetic(models: int, chats: int, turns: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.2, 0.9, models)
    rows = []
    for m in range(models):
        for variant in ("standard", "appended"):
            for chat in range(chats):
                for turn in range(1, turns + 1):
                    for sample in range(2):
                        pif = min(1.0, rng.binomial(4, skill[m]) / 4)
                        rows.append({"model": f"model-{m:03d}", "variant": variant, "chat_id": f"chat-{chat}",
                                     "turn": turn, "sample_index": sample, "n_instructions": 4, "pif": pif})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--chats", type=int, default=4)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--scipy-sample", type=int, default=6, help="pairs run through scipy to compare and time")
    args = parser.parse_args()

    from benchwright.mmmt_if import comparisons, pif

    responses = synthetic(args.models, args.chats, args.turns)
    contexts = pif.contexts(responses)
    started = time.perf_counter()
    comparisons.ecdf(responses)
    comparisons.dominance(responses)
    wilcoxon = comparisons.wilcoxon_pairs(contexts)
    ours_s = time.perf_counter() - started
    pairs = len(wilcoxon)
    methods = wilcoxon["method"].value_counts().to_dict()

    # scipy on a sample of the pairs that need its slowest method: the same p-values, and its time per pair.
    flips = wilcoxon[wilcoxon["method"] == comparisons.SIGN_FLIPS].head(args.scipy_sample)
    wide = {v: part.pivot_table(index=["chat_id", "turn"], columns="model", values="pif")
            for v, part in contexts.groupby("variant")}
    scipy_s, largest_gap = 0.0, 0.0
    for row in flips.itertuples():
        paired = wide[row.variant][[row.model_a, row.model_b]].dropna()
        started = time.perf_counter()
        greater = stats.wilcoxon(paired[row.model_a], paired[row.model_b], alternative="greater").pvalue
        less = stats.wilcoxon(paired[row.model_a], paired[row.model_b], alternative="less").pvalue
        scipy_s += time.perf_counter() - started
        largest_gap = max(largest_gap, abs(greater - row.p_a_greater), abs(less - row.p_b_greater))
    per_pair_s = scipy_s / max(len(flips), 1)
    projected_s = per_pair_s * methods.get(comparisons.SIGN_FLIPS, 0)
    emit("model_comparisons",
         f"{args.models} models: {pairs:,} model pairs × variant in {ours_s:.1f} s (target ≤ {TARGET_S:.0f} s; "
         f"methods {methods}); scipy's method='auto' on {len(flips)} of the sign-flip pairs: {per_pair_s:.2f} s per "
         f"pair, ≈ {projected_s / 60:.0f} min projected to all of them; largest p-value difference {largest_gap:.1e}",
         models=args.models, pairs=pairs, seconds=round(ours_s, 2), target_s=TARGET_S,
         scipy_projected_s=round(projected_s, 1), largest_p_difference=largest_gap, methods=methods)


if __name__ == "__main__":
    main()
