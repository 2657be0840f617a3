"""Benchmark: bootstrap intervals over prompts, with and without style control, on ko-arena-hard-auto.

The real data of ``../shared/data/external/ko-arena-hard-auto`` (76 models × 500 prompts, two games
each, ``>>`` counted 3 times; answer style counts for 72 models), rated as ``interop_ratings`` rates it:
``ratings.rating_table`` with prompts, for each control (none | style | length | markdown), ``--rounds``
bootstrap rounds (default 1,000, the asset's default), seed 42.

For each control, in the same run: the whole ``rating_table`` call with the batched bootstrap (every round
fitted at once: ``ratings._newton_rounds``) and with the per-round fits it replaced (``batched=False``:
one warm-started Newton / L-BFGS-B call per round, the code before), wall and CPU seconds of each, the
ratio, and the largest difference of ratings and interval bounds between the two (target < 0.1 Elo).
Then the four controls summed: seconds new and old (target ≤ 5 s for the new on a quiet machine).

With ``--demo-home HOME`` (a home the demo graph was materialized in: ``BENCHWRIGHT_HOME=HOME python3.11
dev.py demo``), also what ``interop_ratings`` computes there: ``ratings_by_source``
over the home's pairwise judgments and answer style, every control, batched and per round (target ≤ 3 s).

    .venv/bin/python bench/rating_intervals.py [--rounds 1000] [--controls none style ...] [--demo-home HOME]
"""

import argparse
import functools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import emit, machine  # noqa: E402
from benchwright import ratings  # noqa: E402
from benchwright.importers.arena_hard import import_arena_hard  # noqa: E402

KO = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "external" / "ko-arena-hard-auto"
BASELINE = "claude-3.7-sonnet"
COLUMNS = ("rating", "rating_lower", "rating_upper")


def timed_table(battles, style, control: str, rounds: int, batched: bool):
    original = ratings._bootstrap_by_prompt
    if not batched:
        ratings._bootstrap_by_prompt = functools.partial(original, batched=False)
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        table = ratings.rating_table(battles, anchor=BASELINE, weights=ratings.arena_hard_weights(), rounds=rounds,
                                     seed=42, control=control, style=style)
        return table.set_index("model"), time.perf_counter() - wall, time.process_time() - cpu
    finally:
        ratings._bootstrap_by_prompt = original


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--controls", nargs="+", default=list(ratings.CONTROLS), choices=list(ratings.CONTROLS))
    parser.add_argument("--demo-home", help="a materialized demo home: also time interop_ratings' computation there")
    args = parser.parse_args(argv)
    if not KO.is_dir():
        sys.exit(f"ko-arena-hard-auto not found at {KO}")
    print(machine())
    judgments = sorted((KO / "data" / "ko-arena-hard-v0.1" / "model_judgment" / "ensemble").glob("*.jsonl"))
    imported = import_arena_hard(judgments, "ko-arena-hard-v0.1", BASELINE, KO / "answer_style_metadata.csv")
    battles = ratings.battles_from_judgments(imported.judgments, BASELINE, reuse_single_game=True, with_prompt=True)
    style = imported.answer_style
    print(f"{len(battles):,} battles, {battles['prompt'].nunique()} prompts, {len(style):,} answers with style counts")

    totals = {"new_s": 0.0, "new_cpu_s": 0.0, "old_s": 0.0, "old_cpu_s": 0.0}
    largest = 0.0
    for control in args.controls:
        new, new_s, new_cpu = timed_table(battles, style, control, args.rounds, batched=True)
        old, old_s, old_cpu = timed_table(battles, style, control, args.rounds, batched=False)
        difference = max(float((new[c] - old.loc[new.index, c]).abs().max()) for c in COLUMNS)
        largest = max(largest, difference)
        for key, value in (("new_s", new_s), ("new_cpu_s", new_cpu), ("old_s", old_s), ("old_cpu_s", old_cpu)):
            totals[key] += value
        print(f"{control:>8}: batched {new_s:.2f} s ({new_cpu:.2f} s CPU), per round {old_s:.2f} s ({old_cpu:.2f} s "
              f"CPU): {old_s / new_s:.1f}x; largest difference of ratings and bounds {difference:.4f} Elo", flush=True)
    summary = (f"{args.rounds} rounds x {len(args.controls)} controls on ko-arena-hard: batched {totals['new_s']:.2f} s "
               f"({totals['new_cpu_s']:.2f} s CPU; target <= 5 s: {'met' if totals['new_s'] <= 5 else 'missed'}), "
               f"per round {totals['old_s']:.1f} s ({totals['old_cpu_s']:.1f} s CPU): "
               f"{totals['old_s'] / totals['new_s']:.1f}x; largest difference of ratings and bounds {largest:.4f} Elo "
               f"(target < 0.1: {'met' if largest < 0.1 else 'missed'})")
    if args.demo_home:
        summary += "; " + demo(args.demo_home, args.rounds)
    emit("Rating intervals, batched vs per-round bootstrap", summary, largest_difference_elo=largest, **totals)


def demo(home: str, rounds: int) -> str:
    """``ratings_by_source`` as ``interop_ratings`` calls it on a materialized demo home, both ways."""
    import os

    os.environ["BENCHWRIGHT_HOME"] = home
    from assets import interop
    from tests.support.pipeline import resources_for

    warehouse = resources_for(Path(home))["warehouse"]
    judgments, anchors = warehouse.query_file(interop.PAIRWISE_SQL), interop._anchors(warehouse)
    style = interop._answer_style(warehouse, anchors["benchwright"])
    tables, seconds = {}, {}
    for batched in (True, False):
        original = ratings._bootstrap_by_prompt
        if not batched:
            ratings._bootstrap_by_prompt = functools.partial(original, batched=False)
        try:
            started, cpu = time.perf_counter(), time.process_time()
            tables[batched], _ = ratings.ratings_by_source(judgments, anchors, {}, set(), rounds=rounds, seed=42,
                                                           controls=list(ratings.CONTROLS), style=style)
            seconds[batched] = (time.perf_counter() - started, time.process_time() - cpu)
        finally:
            ratings._bootstrap_by_prompt = original
    key = ["source", "judge", "control", "model"]
    new, old = (tables[b].set_index(key) for b in (True, False))
    difference = max(float((new[c] - old.loc[new.index, c]).abs().max()) for c in COLUMNS)
    line = (f"demo ratings_by_source ({len(judgments)} judgments, every control): batched {seconds[True][0]:.2f} s "
            f"({seconds[True][1]:.2f} s CPU; target <= 3 s), per round {seconds[False][0]:.2f} s ({seconds[False][1]:.2f} "
            f"s CPU), largest difference {difference:.4f} Elo")
    print(line)
    return line


if __name__ == "__main__":
    main()
