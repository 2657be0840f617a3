"""Benchmark: bootstrap intervals over prompts, with and without style control, on ko-arena-hard-auto.

The real data of ``../shared/data/external/ko-arena-hard-auto`` (76 models × 500 prompts, two games
each, ``>>`` counted 3 times; answer style counts for 72 models), rated as ``interop_ratings`` rates it:
``ratings.rating_table`` with prompts, for each control (none | style | length | markdown), ``--rounds``
bootstrap rounds (default 1,000, the asset's default).

Prints per control: the seconds of the point fit and of the bootstrap, and rounds per second. Then, in
the same run, what the warm-started Newton fit buys: ``--compare-rounds`` rounds of the style-controlled
bootstrap with Newton's method (ours) and with L-BFGS-B only (Newton switched off), their time ratio,
and the largest difference of their bounds (both must find the same optimum: < 0.01 Elo).

    .venv/bin/python bench/rating_intervals.py [--rounds 1000] [--compare-rounds 100]
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import machine  # noqa: E402
from benchwright import ratings  # noqa: E402
from benchwright.importers.arena_hard import import_arena_hard  # noqa: E402

KO = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "external" / "ko-arena-hard-auto"
BASELINE = "claude-3.7-sonnet"


def timed_table(battles, style, control: str, rounds: int):
    started = time.perf_counter()
    table = ratings.rating_table(battles, anchor=BASELINE, weights=ratings.arena_hard_weights(), rounds=rounds,
                                 seed=42, control=control, style=style)
    return table, time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--compare-rounds", type=int, default=100)
    args = parser.parse_args(argv)
    if not KO.is_dir():
        sys.exit(f"ko-arena-hard-auto not found at {KO}")
    print(machine())
    judgments = sorted((KO / "data" / "ko-arena-hard-v0.1" / "model_judgment" / "ensemble").glob("*.jsonl"))
    imported = import_arena_hard(judgments, "ko-arena-hard-v0.1", BASELINE, KO / "answer_style_metadata.csv")
    battles = ratings.battles_from_judgments(imported.judgments, BASELINE, reuse_single_game=True, with_prompt=True)
    style = imported.answer_style
    print(f"{len(battles):,} battles, {battles['prompt'].nunique()} prompts, {len(style):,} answers with style counts")

    total = 0.0
    for control in ratings.CONTROLS:
        _, point_s = timed_table(battles, style, control, 0)
        _, with_bootstrap_s = timed_table(battles, style, control, args.rounds)
        bootstrap_s = with_bootstrap_s - point_s
        total += with_bootstrap_s
        print(f"{control:>8}: point fit {point_s:.2f} s, {args.rounds} rounds {bootstrap_s:.1f} s "
              f"({args.rounds / bootstrap_s:.0f} rounds/s)")
    print(f"all four controls with {args.rounds} rounds: {total:.1f} s")

    newton_table, newton_s = timed_table(battles, style, "style", args.compare_rounds)
    newton = ratings._newton
    ratings._newton = lambda *a, **k: None  # every fit goes to L-BFGS-B, from the same warm start
    try:
        quasi_table, quasi_s = timed_table(battles, style, "style", args.compare_rounds)
    finally:
        ratings._newton = newton
    difference = max((newton_table[c] - quasi_table[c]).abs().max() for c in ("rating", "rating_lower", "rating_upper"))
    print(f"style control, {args.compare_rounds} rounds: Newton {newton_s:.2f} s, L-BFGS-B only {quasi_s:.2f} s: "
          f"{quasi_s / newton_s:.1f}x; largest difference of ratings and bounds {difference:.4f} Elo (must be < 0.01)")


if __name__ == "__main__":
    main()
