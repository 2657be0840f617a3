"""Benchmark: the simulated cold run with two run workers against one (issue #30 item 4: ≤ 0.6).

`bench/full_size.py --cold-then-noop` in fresh temporary homes, one worker and two, interleaved (the order turns
each round), each in a process of its own. "Two workers" is `--parallel-runs 2` (the runs of a stage, e.g. the
candidates' generations or the (model, judge) judgments, two at a time, each in a forked process of the main job's
pool) or, with `--step-processes`, two step processes per run (Dagster's multiprocess executor). Medians of the
rounds: cold wall time of each, and two ÷ one.

    .venv/bin/python bench/two_workers.py [--scale 1] [--rounds 2] [--candidates 10] [--step-processes]

The full size by default (issue #30 measures the full-size cold run); `--scale 0.1` for a quick look.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from _common import RESULT_PREFIX, ROOT, emit

TARGET = 0.6


def cold_run(scale: float, candidates: int, workers: int, step_processes: bool) -> dict:
    option = ["--workers", str(workers)] if step_processes else ["--parallel-runs", str(workers)]
    lines = subprocess.run([sys.executable, str(ROOT / "bench" / "full_size.py"), "--scale", str(scale),
                            "--candidates", str(candidates), "--cold-then-noop", *option],
                           capture_output=True, text=True, check=True, cwd=ROOT).stdout.splitlines()
    result = json.loads(next(line for line in reversed(lines) if line.startswith(RESULT_PREFIX))[len(RESULT_PREFIX):])
    cold = result["phases"][0]
    print(f"  {workers} {'step processes' if step_processes else 'runs at once'}: cold {cold['wall_s']:.1f} s, "
          f"{cold['runs']} runs, {cold['calls']:,} calls", flush=True)
    return cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--candidates", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--step-processes", action="store_true",
                        help="two step processes per run instead of two runs at once")
    args = parser.parse_args()
    walls: dict[int, list[float]] = {1: [], 2: []}
    calls: dict[int, set[int]] = {1: set(), 2: set()}
    for round_ in range(args.rounds):
        for workers in ((1, 2) if round_ % 2 == 0 else (2, 1)):
            cold = cold_run(args.scale, args.candidates, workers, args.step_processes)
            walls[workers].append(cold["wall_s"])
            calls[workers].add(cold["calls"])
    one, two = statistics.median(walls[1]), statistics.median(walls[2])
    kind = "step processes per run" if args.step_processes else "runs at once"
    ratio = two / one
    summary = (f"scale {args.scale}, {args.candidates} candidates, cold run, medians of {args.rounds} interleaved "
               f"rounds: 1 worker {one:.1f} s, 2 {kind} {two:.1f} s: **two ÷ one {ratio:.2f}** (target ≤ {TARGET}: "
               f"{'met' if ratio <= TARGET else 'missed'}); calls {sorted(calls[1])} / {sorted(calls[2])}")
    emit("Two workers against one", summary, one_s=one, two_s=two, ratio=ratio, kind=kind)


if __name__ == "__main__":
    main()
