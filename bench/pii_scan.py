"""Benchmark: the personal-data scan of a real dataset's texts, now and at an older commit.

URS's 1,846 questions and their reference answers (`urs/data/data_all.csv` in the external data, the full-size
workload's dataset) are scanned by `benchwright.pii` as `urs_items` scans them, once per text (the scan itself,
`pii._scan`, not the memory of recent scans). The phone search is most of it: libphonenumber's matcher once for
numbers written with a country code, then once per region of `PHONE_REGIONS` (26) for national forms.
The code at `--before` (default `BEFORE`, where every region's pass read the whole text) comes from `git archive`
and is imported in place of today's; each (code, round) runs in a fresh process, in an order that turns each
round. Medians over the rounds: seconds of CPU, now ÷ before, and whether both found the same spans in every text.

    .venv/bin/python bench/pii_scan.py [--rounds 3] [--before 2d53e80]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from _common import ROOT, emit, in_fresh_process
from llm_overhead import _older_code

BEFORE = "2d53e80"  # every region's pass over the whole text
DATA = ROOT.parent / "shared" / "data" / "external" / "urs" / "data" / "data_all.csv"


def _child(code_root: str, data: str, results) -> None:
    sys.path.insert(0, code_root)  # before anything imports benchwright: today's or the older commit's
    import benchwright
    from benchwright import pii
    from benchwright.urs.loader import load_urs_csv

    assert Path(benchwright.__file__).resolve().is_relative_to(Path(code_root).resolve()), benchwright.__file__
    texts = [getattr(item, column) for item in load_urs_csv(data).items for column in ("question", "reference_answer")
             if getattr(item, column)]
    pii._scan("Call 06 12 34 56 78 or +1 415-555-0132.")  # libphonenumber's metadata loaded before the clock
    cpu = time.process_time()
    found = [[(f.kind, f.start, f.end) for f in pii._scan(text)] for text in texts]
    results.put((time.process_time() - cpu, len(texts), found))


def _measure(code_root: Path, data: Path) -> tuple[float, int, list]:
    return in_fresh_process(_child, str(code_root), str(data))


def measure(rounds: int = 3, before: str = BEFORE, data: Path = DATA) -> dict:
    roots = {"now": ROOT, "before": _older_code(before)}
    seconds: dict[str, list[float]] = {code: [] for code in roots}
    found: dict[str, list] = {}
    texts = 0
    for round_ in range(rounds):
        for code in (list(roots) if round_ % 2 == 0 else list(roots)[::-1]):
            cpu_s, texts, found[code] = _measure(roots[code], data)
            seconds[code].append(cpu_s)
            print(f"  round {round_ + 1}, {code}: {cpu_s:.2f} s CPU", flush=True)
    now, then = statistics.median(seconds["now"]), statistics.median(seconds["before"])
    same = found["now"] == found["before"]
    differing = sum(a != b for a, b in zip(found["now"], found["before"]))
    phones = sum(kind == "phone" for spans in found["now"] for kind, _, _ in spans)
    summary = (f"URS's {texts:,} questions and reference answers, each scanned once, median of {rounds}: now "
               f"{now:.2f} s CPU, at {before} {then:.2f} s: **now ÷ before {now / then:.2f}**; the same findings in "
               f"every text: {'yes' if same else f'no, {differing} texts differ'} ({phones} phone numbers)")
    return {"summary": summary, "now_s": now, "before_s": then, "ratio": now / then, "same_findings": same,
            "before": before, "rounds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    emit("personal-data scan of URS's texts", **measure(args.rounds, args.before, args.data))


if __name__ == "__main__":
    main()
