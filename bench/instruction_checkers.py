"""Benchmark: checking MMMT-IF instructions, responses per second on one core.

Builds 100,000 (response, instruction set) pairs — distinct responses, so the per-response text
analysis cache never helps — and times ``benchwright.mmmt_if.instruction_following.followed`` on them in one
process. Instruction sets are drawn like the chat set's: one option from each of 0-6 categories.
Half the responses are the simulator's plain prose (shaped to follow or break each instruction),
half are markdown answers (headings, bullets, bold, numbers, quotes), 40-140 words each.

    .venv/bin/python bench/instruction_checkers.py            # 100,000 pairs
    .venv/bin/python bench/instruction_checkers.py --pairs 20000

Prints responses/s overall and per kind, per CPU second of this process (per core) and by the wall clock,
against the target (20,000 responses/s per core).
"""

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET = 20_000


def markdown_answer(rng: random.Random, index: int) -> str:
    items = rng.sample(["the red boat", "a striped lighthouse", "three gulls", "the fish stall", "a quiet quay",
                        "the morning light", "soft blue water", "a wooden pier"], 4)
    lines = [f"## Answer {index}", "", f"Here is what **Image {rng.randint(1, 5)}** shows:", ""]
    lines += [f"- {item.capitalize()}, about {rng.randint(2, 40)} metres away." for item in items]
    lines += ["", f'The guide says "it is {rng.choice(["lovely", "calm", "busy"])}!" Is that true?',
              f"Overall, e.g. in {rng.randint(1990, 2024)}, the harbour looked much like this... mostly."]
    return "\n".join(lines)


def build_pairs(count: int, seed: int = 0) -> tuple[list[str], list[list[str]], list[str]]:
    from benchwright.mmmt_if.instruction_following import CATEGORIES, OPTIONS_BY_CATEGORY
    from benchwright.mmmt_if.simulated import compose

    rng = random.Random(seed)
    topics = ["harbour", "boats", "lighthouse", "garden", "flowers", "soup", "bread", "tram", "kite", "blocks"]
    responses, instruction_sets, kinds = [], [], []
    for index in range(count):
        categories = rng.sample(CATEGORIES, rng.randint(0, len(CATEGORIES)))
        ids = [rng.choice(OPTIONS_BY_CATEGORY[c]) for c in categories]
        if index % 2:
            text = markdown_answer(rng, index)
            kinds.append("markdown")
        else:
            text = compose(rng, {i: rng.random() < 0.6 for i in ids}, rng.sample(topics, 2)) + f" Note {index}."
            kinds.append("prose")
        responses.append(text)
        instruction_sets.append(ids)
    return responses, instruction_sets, kinds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=100_000)
    args = parser.parse_args(argv)

    from benchwright.mmmt_if.instruction_following import followed
    from benchwright.mmmt_if.instruction_following.text import analyse

    t0 = time.perf_counter()
    responses, instruction_sets, kinds = build_pairs(args.pairs)
    built = time.perf_counter() - t0
    words = sum(len(r.split()) for r in responses) / len(responses)
    print(f"built {len(responses):,} distinct responses ({words:.0f} words on average) in {built:.1f} s")

    analyse.cache_clear()
    elapsed = {}
    for kind in ("prose", "markdown"):
        pairs = [(r, s) for r, s, k in zip(responses, instruction_sets, kinds) if k == kind]
        start, start_cpu = time.perf_counter(), time.process_time()
        for response, ids in pairs:
            followed(response, ids)
        elapsed[kind] = (len(pairs), time.perf_counter() - start, time.process_time() - start_cpu)
    count = sum(n for n, _, _ in elapsed.values())
    wall = count / sum(t for _, t, _ in elapsed.values())
    cpu = count / sum(c for _, _, c in elapsed.values())
    for kind, (n, seconds, cpu_seconds) in elapsed.items():
        print(f"{kind:>9}: {n:,} pairs in {seconds:.2f} s = {n / seconds:,.0f} responses/s "
              f"({n / cpu_seconds:,.0f} per CPU second)")
    # Per core = per second of CPU this process got: on a shared machine the wall clock also counts the
    # time other processes held the core.
    print(f"  overall: {cpu:,.0f} responses/s per core (CPU time; target {TARGET:,}: {cpu / TARGET:.2f}x), "
          f"{wall:,.0f} responses/s by the wall clock ({wall / TARGET:.2f}x)")


if __name__ == "__main__":
    main()
