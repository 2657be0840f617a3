"""Benchmark: the anchor-set work on real data, against the ratings it sits beside.

ko-arena-hard-auto's ensemble judgments (76 models × 500 prompts; ``scripts/anchors_validation.py`` reads them the
same way). In one process, alternating for ``--rounds`` rounds (medians):

* what the two anchor assets compute on that source (``anchors.pairwise_sets`` and ``anchor_tables``: the cells, the 2PL fit and the anchors;
  ``anchors.estimate_table``: every model's estimate with 200 bootstrap rounds), against what ``interop_ratings``
  computes for it without style control (``ratings.rating_table``, 1,000 bootstrap rounds over prompts): the ratio;
* the 2PL fit on one BLAS thread (``numeric.one_blas_thread``, as shipped) and with OpenBLAS's own threads: the ratio.

    .venv/bin/python bench/anchor_sets.py [--rounds 3]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import emit, machine  # noqa: E402
from benchwright import anchors, ratings  # noqa: E402
from scripts.anchors_validation import KO_BASELINE, KO_JUDGMENTS  # noqa: E402


def timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    from benchwright.importers.arena_hard import import_arena_hard

    print(machine())
    judgments = import_arena_hard(sorted(KO_JUDGMENTS.glob("*.jsonl")), "ko-arena-hard-v0.1", KO_BASELINE).judgments
    judgments = judgments.assign(source="arena_hard:ko", judge="ensemble")
    baselines, weights, reuse = {"arena_hard:ko": KO_BASELINE}, {"arena_hard:ko": ratings.arena_hard_weights(3)}, {"arena_hard:ko"}
    responses = anchors.item_responses(judgments, KO_BASELINE, ratings.arena_hard_weights(3), reuse_single_game=True)
    threaded_fit = anchors.fit_item_model.__wrapped__  # the same function without the one-thread limit

    def anchor_assets():
        sets = anchors.pairwise_sets(judgments, baselines, weights, reuse)
        fits, items = anchors.anchor_tables(sets)
        anchors.estimate_table(sets, fits, items)

    def ratings_step():
        battles = ratings.battles_from_judgments(judgments, KO_BASELINE, reuse_single_game=True, with_prompt=True)
        ratings.rating_table(battles, anchor=KO_BASELINE, weights=ratings.arena_hard_weights(3), rounds=1000)

    times = {"anchors": [], "ratings": [], "fit one thread": [], "fit threaded": []}
    for _ in range(args.rounds):
        times["anchors"].append(timed(anchor_assets))
        times["ratings"].append(timed(ratings_step))
        times["fit one thread"].append(timed(lambda: anchors.fit_item_model(responses)))
        times["fit threaded"].append(timed(lambda: threaded_fit(responses)))
    median = {name: statistics.median(values) for name, values in times.items()}
    for name, value in median.items():
        print(f"{name:16s} {value:.2f} s (rounds: {', '.join(f'{v:.2f}' for v in times[name])})")
    emit("anchor_sets", f"anchor assets {median['anchors']:.2f} s vs interop_ratings' fit {median['ratings']:.2f} s "
                        f"(ratio {median['anchors'] / median['ratings']:.2f}); 2PL fit one BLAS thread "
                        f"{median['fit one thread']:.2f} s vs threaded {median['fit threaded']:.2f} s",
         **{name.replace(" ", "_"): value for name, value in median.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
