"""Benchmark: bootstrap intervals over prompts, with and without style control, on ko-arena-hard-auto.

The real data of ``../shared/data/external/ko-arena-hard-auto`` (76 models × 500 prompts, two games
each, ``>>`` counted 3 times; answer style counts for 72 models), rated as ``interop_ratings`` rates it:
``ratings.rating_table`` with prompts, for each control (none | style | length | markdown), ``--rounds``
bootstrap rounds (default 1,000, the asset's default), seed 42.

For each control, in the same run: the whole ``rating_table`` call with the batched bootstrap (every round
fitted at once: ``ratings._newton_rounds``) and with the per-round fits it replaced (``batched=False``:
one warm-started Newton / L-BFGS-B call per round, the code before), wall and CPU seconds of each, the
ratio, and the largest difference of ratings and interval bounds between the two (target < 0.1 Elo).
Also the batched bootstrap as it was at ``--before`` (``ratings.py`` read with ``git show``), time and difference.
Then the four controls summed: seconds new and old (target ≤ 5 s for the new on a quiet machine).

With ``--demo-home HOME`` (a home the demo graph was materialized in: ``BENCHWRIGHT_HOME=HOME python3.11
dev.py demo``), also what ``interop_ratings`` computes there: ``ratings_by_source`` over the home's pairwise
judgments and answer style, every control (target ≤ 3 s), in the same run: batched now; batched as at
``--before`` (``ratings.py`` read with ``git show``: the rounds the batched fit could not take went one by one to
L-BFGS-B); one fit per round now (``batched=False``); and one fit per round with every warm start nudged by 1e-9
logits. Per control, the largest difference of ratings and bounds between them: the nudged per-round fit shows
how far the per-round answer itself is defined (on the demo the style and markdown columns are collinear with
the models in some rounds, and a judge's verdicts separate them in others). Then the ``interop_ratings`` step
itself (Dagster, in process, on a copy of the home), now and with ``ratings`` at ``--before``, alternately, three
times each: median step seconds (target ≤ 3 s). ``--demo-only`` skips ko-arena-hard.

    .venv/bin/python bench/rating_intervals.py [--rounds 1000] [--controls none style ...] [--demo-home HOME]
        [--demo-only] [--before COMMIT]
"""

import argparse
import contextlib
import functools
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import emit, machine  # noqa: E402
from benchwright import ratings  # noqa: E402
from benchwright.importers.arena_hard import import_arena_hard  # noqa: E402

KO = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "external" / "ko-arena-hard-auto"
BASELINE = "claude-3.7-sonnet"
COLUMNS = ("rating", "rating_lower", "rating_upper")
# The batched bootstrap before ridge rounds were fitted batched too (they fell back to one L-BFGS-B call each).
BEFORE = "70a5e0f"


def timed_table(battles, style, control: str, rounds: int, batched: bool, module=ratings):
    original = module._bootstrap_by_prompt
    if not batched:
        module._bootstrap_by_prompt = functools.partial(original, batched=False)
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        table = module.rating_table(battles, anchor=BASELINE, weights=module.arena_hard_weights(), rounds=rounds,
                                    seed=42, control=control, style=style)
        return table.set_index("model"), time.perf_counter() - wall, time.process_time() - cpu
    finally:
        module._bootstrap_by_prompt = original


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--controls", nargs="+", default=list(ratings.CONTROLS), choices=list(ratings.CONTROLS))
    parser.add_argument("--demo-home", help="a materialized demo home: also time interop_ratings' computation there")
    parser.add_argument("--before", default=BEFORE, help="commit whose ratings.py is the 'before' on the demo")
    parser.add_argument("--demo-only", action="store_true", help="with --demo-home: skip ko-arena-hard")
    args = parser.parse_args(argv)
    print(machine())
    if args.demo_only:
        if not args.demo_home:
            sys.exit("--demo-only needs --demo-home")
        summary = demo(args.demo_home, args.rounds, args.before)
        emit("Rating intervals on the demo, batched vs before and per round", summary)
        return
    if not KO.is_dir():
        sys.exit(f"ko-arena-hard-auto not found at {KO}")
    judgments = sorted((KO / "data" / "ko-arena-hard-v0.1" / "model_judgment" / "ensemble").glob("*.jsonl"))
    imported = import_arena_hard(judgments, "ko-arena-hard-v0.1", BASELINE, KO / "answer_style_metadata.csv")
    battles = ratings.battles_from_judgments(imported.judgments, BASELINE, reuse_single_game=True, with_prompt=True)
    style = imported.answer_style
    print(f"{len(battles):,} battles, {battles['prompt'].nunique()} prompts, {len(style):,} answers with style counts")

    totals = {"new_s": 0.0, "new_cpu_s": 0.0, "old_s": 0.0, "old_cpu_s": 0.0, "before_s": 0.0, "before_cpu_s": 0.0}
    largest = largest_before = 0.0
    before = _module_before(args.before)
    for control in args.controls:
        new, new_s, new_cpu = timed_table(battles, style, control, args.rounds, batched=True)
        old, old_s, old_cpu = timed_table(battles, style, control, args.rounds, batched=False)
        then, then_s, then_cpu = timed_table(battles, style, control, args.rounds, batched=True, module=before)
        difference = max(float((new[c] - old.loc[new.index, c]).abs().max()) for c in COLUMNS)
        from_before = max(float((new[c] - then.loc[new.index, c]).abs().max()) for c in COLUMNS)
        largest, largest_before = max(largest, difference), max(largest_before, from_before)
        for key, value in (("new_s", new_s), ("new_cpu_s", new_cpu), ("old_s", old_s), ("old_cpu_s", old_cpu),
                           ("before_s", then_s), ("before_cpu_s", then_cpu)):
            totals[key] += value
        print(f"{control:>8}: batched {new_s:.2f} s ({new_cpu:.2f} s CPU), per round {old_s:.2f} s ({old_cpu:.2f} s "
              f"CPU): {old_s / new_s:.1f}x; largest difference of ratings and bounds {difference:.4f} Elo; batched at "
              f"{args.before} {then_s:.2f} s ({then_cpu:.2f} s CPU), difference {from_before:.4f} Elo", flush=True)
    summary = (f"{args.rounds} rounds x {len(args.controls)} controls on ko-arena-hard: batched {totals['new_s']:.2f} s "
               f"({totals['new_cpu_s']:.2f} s CPU; target <= 5 s: {'met' if totals['new_s'] <= 5 else 'missed'}), "
               f"per round {totals['old_s']:.1f} s ({totals['old_cpu_s']:.1f} s CPU): "
               f"{totals['old_s'] / totals['new_s']:.1f}x; largest difference of ratings and bounds {largest:.4f} Elo "
               f"(target < 0.1: {'met' if largest < 0.1 else 'missed'}); batched at {args.before} "
               f"{totals['before_s']:.2f} s ({totals['before_cpu_s']:.2f} s CPU), {largest_before:.4f} Elo apart")
    if args.demo_home:
        summary += "; " + demo(args.demo_home, args.rounds, args.before)
    emit("Rating intervals, batched vs per-round bootstrap", summary, largest_difference_elo=largest, **totals)


def _module_before(commit: str):
    """``benchwright.ratings`` as it was at ``commit`` (read with ``git show``), as a module of its own."""
    source = subprocess.run(["git", "show", f"{commit}:benchwright/ratings.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    module = types.ModuleType("ratings_before")
    exec(compile(source, f"{commit}:benchwright/ratings.py", "exec", dont_inherit=True), module.__dict__)
    return module


@contextlib.contextmanager
def _per_round(module, nudge: float = 0.0):
    """``module``'s bootstrap fitted one round at a time (``batched=False``); with ``nudge``, every round's warm
    start moved by that many logits (seeded noise; parameters at the bound stay): how much the per-round
    fit's own answer depends on where it starts."""
    bootstrap, fit = module._bootstrap_by_prompt, module._fit_parameters
    module._bootstrap_by_prompt = functools.partial(bootstrap, batched=False)
    if nudge:
        def nudged(n_models, i, j, battles, score, pinned, start, connected=False, features=None):
            if start is not None:
                noise = np.random.default_rng(len(i)).standard_normal(len(start))
                start = start + nudge * noise * (np.abs(start) < module.RATING_BOUND_LOGITS - 1e-6)
            return fit(n_models, i, j, battles, score, pinned, start, connected, features)
        module._fit_parameters = nudged
    try:
        yield
    finally:
        module._bootstrap_by_prompt, module._fit_parameters = bootstrap, fit


@contextlib.contextmanager
def _batched_nudged(nudge: float):
    """The batched bootstrap started from the full-data fit moved by ``nudge`` logits (as ``_per_round``)."""
    batched_rounds = ratings._newton_rounds

    def nudged(rows, pinned, start):
        noise = np.random.default_rng(len(start)).standard_normal(len(start))
        inside = np.abs(start) < ratings.RATING_BOUND_LOGITS - 1e-6
        return batched_rounds(rows, pinned, start + nudge * noise * inside)

    ratings._newton_rounds = nudged
    try:
        yield
    finally:
        ratings._newton_rounds = batched_rounds


def demo(home: str, rounds: int, before: str) -> str:
    """``ratings_by_source`` as ``interop_ratings`` calls it on a materialized demo home: batched now, batched
    as at ``before``, and one fit per round (now, and with the warm starts nudged by 1e-9 logits)."""
    import os

    os.environ["BENCHWRIGHT_HOME"] = home
    from assets import interop
    from tests.support.pipeline import resources_for

    warehouse = resources_for(Path(home))["warehouse"]
    started, cpu = time.perf_counter(), time.process_time()  # the asset's reading, before ratings_by_source
    judgments, anchors = warehouse.query_file(interop.PAIRWISE_SQL), interop._anchors(warehouse)
    style = interop._answer_style(warehouse, anchors["benchwright"])
    inputs = (time.perf_counter() - started, time.process_time() - cpu)
    old = _module_before(before)
    fallbacks = []
    batched_rounds = ratings._newton_rounds

    def counted(rows, pinned, start):
        parameters, fitted = batched_rounds(rows, pinned, start)
        fallbacks.append(int((~fitted).sum()))
        return parameters, fitted

    runs = {  # name -> (module, context)
        "batched": (ratings, contextlib.nullcontext()), f"batched at {before}": (old, contextlib.nullcontext()),
        "per round": (ratings, _per_round(ratings)), "per round, nudged": (ratings, _per_round(ratings, 1e-9)),
        "batched, nudged": (ratings, _batched_nudged(1e-9)),
    }
    tables, seconds = {}, {}
    for name, (module, context) in runs.items():
        if name == "batched":
            ratings._newton_rounds = counted
        with context:
            started, cpu = time.perf_counter(), time.process_time()
            tables[name], _ = module.ratings_by_source(judgments, anchors, {}, set(), rounds=rounds, seed=42,
                                                       controls=list(ratings.CONTROLS), style=style)
            seconds[name] = (time.perf_counter() - started, time.process_time() - cpu)
        ratings._newton_rounds = batched_rounds
    key = ["source", "judge", "control", "model"]
    indexed = {name: table.set_index(key) for name, table in tables.items()}

    def largest(name: str, against: str, by=("control",)) -> pd.Series:  # over models and the three columns
        a, b = indexed[name], indexed[against].loc[indexed[name].index]
        return (a[list(COLUMNS)] - b[list(COLUMNS)]).abs().max(axis=1).groupby(level=list(by)).max()

    columns = {"batched - per round": ("batched", "per round"),
               "per round nudged 1e-9 - per round": ("per round, nudged", "per round"),
               "batched nudged 1e-9 - batched": ("batched, nudged", "batched"),
               f"batched - batched at {before}": ("batched", f"batched at {before}")}
    differences = pd.DataFrame({label: largest(*pair) for label, pair in columns.items()})
    by_judge = pd.DataFrame({label: largest(*pair, by=("judge", "control")) for label, pair in columns.items()})
    print(f"demo: the asset's inputs read in {inputs[0]:.2f} s ({inputs[1]:.2f} s CPU); ratings_by_source, "
          f"{len(judgments)} judgments, {rounds} rounds, every control:")
    for name, (wall, cpu) in seconds.items():
        print(f"  {name:>22}: {wall:.2f} s ({cpu:.2f} s CPU)")
    print(f"  rounds fitted one by one in the batched run: {sum(fallbacks)} of {rounds * len(fallbacks)}")
    print("  largest difference of ratings and interval bounds (Elo), per control:")
    print(by_judge.round(4).to_string())
    new_s, old_s = seconds["batched"][0], seconds[f"batched at {before}"][0]
    well_posed = differences.loc[["none", "length"], "batched - per round"].max()
    line = (f"demo interop_ratings' inputs {inputs[0]:.2f} s, then ratings_by_source ({len(judgments)} judgments, "
            f"every control): batched {new_s:.2f} s "
            f"({seconds['batched'][1]:.2f} s CPU; target <= 3 s: {'met' if new_s <= 3 else 'missed'}), "
            f"{sum(fallbacks)} rounds fitted one by one; at {before} {old_s:.2f} s ({old_s / new_s:.1f}x); per round "
            f"{seconds['per round'][0]:.2f} s; batched - per round: none and length {well_posed:.4f} Elo, style "
            f"{differences.loc['style', 'batched - per round']:.1f}, markdown "
            f"{differences.loc['markdown', 'batched - per round']:.1f} (per round nudged by 1e-9 logits moves itself "
            f"by up to {differences['per round nudged 1e-9 - per round'].max():.1f}, batched by "
            f"{differences['batched nudged 1e-9 - batched'].max():.4f})")
    print(line)
    return line + "; " + asset_step(home, old, before)


def asset_step(home: str, old, before: str, rounds: int = 3) -> str:
    """The ``interop_ratings`` step itself (Dagster, in process) on a copy of ``home``: with ``ratings`` now and
    with ``ratings`` at ``before`` (patched into the asset's module), alternately, ``rounds`` times each; the
    median step seconds of each (from the run's step events)."""
    import shutil
    import statistics
    import tempfile

    import dagster as dg

    from assets import interop
    from resources import default_resources
    from tests.support.pipeline import materialize

    seconds = {"now": [], before: []}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "home"
        shutil.copytree(home, copy, ignore=shutil.ignore_patterns("dagster_home"))
        resources = default_resources(home=copy)
        with dg.instance_for_test() as instance:
            for _ in range(rounds):
                for name, module in (("now", ratings), (before, old)):
                    interop.ratings = module
                    try:
                        result = materialize(["interop_ratings"], instance, resources)
                    finally:
                        interop.ratings = ratings
                    times = {e.dagster_event_type: e.timestamp for e in instance.all_logs(result.run_id)
                             if e.step_key == "interop_ratings" and e.dagster_event_type in
                             (dg.DagsterEventType.STEP_START, dg.DagsterEventType.STEP_SUCCESS)}
                    seconds[name].append(times[dg.DagsterEventType.STEP_SUCCESS] - times[dg.DagsterEventType.STEP_START])
    now, then = statistics.median(seconds["now"]), statistics.median(seconds[before])
    line = (f"interop_ratings step (Dagster, in process, median of {rounds}): {now:.2f} s (target <= 3 s: "
            f"{'met' if now <= 3 else 'missed'}), at {before} {then:.2f} s")
    print(line)
    return line


if __name__ == "__main__":
    main()
