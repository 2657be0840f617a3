"""Small anchor sets checked on real data with models held out (README.md#small-anchor-sets).

ko-arena-hard-auto's ensemble judgments (../shared/data/external/ko-arena-hard-auto: 76 models × 500 prompts, two
games each against claude-3.7-sonnet, `>>` counted 3 times, a record with one game read twice as Arena-Hard
does), as `benchwright.anchors.item_responses` reads them. Per split (seed = split number): 50 models drawn at
random are the known ones; the item model is fitted on them and the anchors chosen; each of the other 26 models'
score is estimated from its anchor prompts alone and compared with its full score (its win rate over all 500
prompts, the `score` column of the published no_control.csv for every model but the baseline, whose own row is
its judged self-battles). Prints one row per (anchor count, split) and a summary per anchor count, as Markdown.

    .venv/bin/python scripts/anchors_validation.py [--splits 10] [--anchors 100 50] [--rounds 200]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchwright import anchors, ratings  # noqa: E402
from benchwright.importers.arena_hard import import_arena_hard  # noqa: E402

KO = ROOT / ".." / "shared" / "data" / "external" / "ko-arena-hard-auto"
KO_JUDGMENTS = KO / "data" / "ko-arena-hard-v0.1" / "model_judgment" / "ensemble"
KO_BASELINE = "claude-3.7-sonnet"
KNOWN_MODELS = 50
# What issue #33 item 6 asks of the held-out models' estimates.
LEAST_SPEARMAN = 0.95
LARGEST_MEDIAN_ERROR = 2.0


def ko_responses() -> anchors.ItemResponses:
    imported = import_arena_hard(sorted(KO_JUDGMENTS.glob("*.jsonl")), "ko-arena-hard-v0.1", KO_BASELINE)
    return anchors.item_responses(imported.judgments, KO_BASELINE, ratings.arena_hard_weights(3),
                                  reuse_single_game=True)


def validations(responses: anchors.ItemResponses, counts, splits, rounds: int) -> list[anchors.Validation]:
    return [anchors.held_out_validation(responses, KNOWN_MODELS, count, split, rounds=rounds)
            for count in counts for split in splits]


def random_items(responses: anchors.ItemResponses, count: int, split: int) -> anchors.Validation:
    """The same held-out models scored on `count` prompts drawn at random (their plain win rate there): what the
    item model and the chosen anchors add. No interval (low = high = the estimate)."""
    order = np.random.default_rng(split).permutation(len(responses.models))
    held_out = order[KNOWN_MODELS:]
    picked = np.random.default_rng(1000 + split).choice(len(responses.items), count, replace=False)
    points, weight = responses.points[np.ix_(held_out, picked)], responses.weight[np.ix_(held_out, picked)]
    plain = 100 * np.nansum(points, axis=1) / np.nansum(weight, axis=1)
    return anchors.Validation(split, count, [responses.models[m] for m in held_out],
                              anchors.full_scores(responses.take(held_out)), plain, plain, plain,
                              method="at random, plain win rate")


def table(found: list[anchors.Validation]) -> str:
    lines = ["| anchors | split | held out | Spearman | median abs error | largest abs error | 95 % interval covers | "
             "mean interval width |", "|---|---|---|---|---|---|---|---|"]
    for v in found:
        errors = np.abs(v.errors)
        lines.append(f"| {v.anchors} | {v.split} | {len(v.held_out)} | {v.spearman:.3f} | {np.median(errors):.2f} | "
                     f"{errors.max():.2f} | {v.coverage:.2f} | {np.mean(v.high - v.low):.1f} |")
    return "\n".join(lines)


def summary(found: list[anchors.Validation]) -> str:
    lines = ["| prompts | chosen | splits | least Spearman | largest median abs error | mean median abs error | "
             "interval coverage (all held out) | target met |", "|---|---|---|---|---|---|---|---|"]
    for count, method in dict.fromkeys((v.anchors, v.method) for v in found):
        rows = [v for v in found if v.anchors == count and v.method == method]
        least = min(v.spearman for v in rows)
        medians = [float(np.median(np.abs(v.errors))) for v in rows]
        coverage = np.mean(np.concatenate([(v.low <= v.full) & (v.full <= v.high) for v in rows]))
        met = least >= LEAST_SPEARMAN and max(medians) <= LARGEST_MEDIAN_ERROR
        shown = f"{coverage:.2f}" if method == "anchors" else "—"
        lines.append(f"| {count} | {method} | {len(rows)} | {least:.3f} | {max(medians):.2f} | {np.mean(medians):.2f} | "
                     f"{shown} | {'yes' if met else 'no'} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--anchors", type=int, nargs="+", default=[100, 50])
    parser.add_argument("--rounds", type=int, default=anchors.BOOTSTRAP_ROUNDS)
    args = parser.parse_args(argv)
    responses = ko_responses()
    found = validations(responses, args.anchors, range(args.splits), args.rounds)
    # For comparison: as many prompts at random, their plain win rate.
    baseline = [random_items(responses, max(args.anchors), split) for split in range(args.splits)]
    print(f"ko-arena-hard-v0.1: {len(responses.models)} models × {len(responses.items)} prompts; "
          f"{KNOWN_MODELS} known, {len(responses.models) - KNOWN_MODELS} held out per split\n")
    print(summary(found + baseline) + "\n\n" + table(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
