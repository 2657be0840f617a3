"""Benchmark: CPU per simulated call through `LLMRunner`, now and at an older commit.

Every `sim/...` request of the demo and of the full-size graph goes through the runner (cache lookup, the `sim`
back end, redaction, the journal, statistics), so what the runner adds per simulated call is paid ≈ 136,000 times
by a full-size cold run. Two simulators:

- stand-in: `benchwright.simulate.complete` replaced by one that returns a fixed answer, so the runner's own
  cost is what is measured;
- real: the simulator itself, on a short prompt it answers as a candidate.

Each (code, simulator) pair runs in a fresh process (spawned in an order that turns each round) on a fresh cache:
a warm-up of 50 requests, then `--calls` distinct misses in one `run()`; CPU time of the process per call. The
code at `--before` (default `BEFORE`, the runner before its back ends were split out) comes from `git archive`
and is imported in place of today's. Medians over the rounds; the ratio now ÷ before is taken within this run.

    .venv/bin/python bench/sim_overhead.py [--calls 3000] [--rounds 3] [--before e50aefc]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, emit, in_fresh_process
from llm_overhead import _older_code

BEFORE = "e50aefc"  # the runner that imported the simulator and answered each sim/ request in a task of its own
TARGET = 1.0  # now ÷ before, stand-in simulator: the split must not cost CPU per call


def _child(code_root: str, stand_in: bool, calls: int, results) -> None:
    sys.path.insert(0, code_root)  # before anything imports benchwright: today's or the older commit's
    import benchwright
    import benchwright.simulate as simulate
    from benchwright.llm import LLMRequest, LLMRunner

    assert Path(benchwright.__file__).resolve().is_relative_to(Path(code_root).resolve()), benchwright.__file__
    if stand_in:
        def complete(model, messages, params, sample_index, **_):
            return simulate.SimCompletion(text="a fixed answer", tokens_in=3, tokens_out=3)

        simulate.complete = complete  # the back end (or the old runner) looks it up at each run
    requests = [LLMRequest(model="sim/bench-writer", params={"skill": 0.6}, sample_index=i,
                           messages=[{"role": "user", "content": f"Write a short note about item {i}."}])
                for i in range(calls + 50)]
    with tempfile.TemporaryDirectory() as folder, LLMRunner(str(Path(folder) / "llm.sqlite")) as runner:
        runner.run(requests[:50])  # imports, the cache's schema, the simulator's first call
        cpu = time.process_time()
        _, stats = runner.run(requests[50:])
        results.put(time.process_time() - cpu)
    assert stats.api_calls == calls and stats.errors == 0, stats


def _measure(code_root: Path, stand_in: bool, calls: int) -> float:
    return in_fresh_process(_child, str(code_root), stand_in, calls)


def measure(calls: int = 3000, rounds: int = 3, before: str = BEFORE) -> dict:
    roots = {"now": ROOT, "before": _older_code(before)}
    cases = [(code, simulator) for simulator in ("stand-in", "real") for code in roots]
    us: dict[tuple[str, str], list[float]] = {case: [] for case in cases}
    for round_ in range(rounds):
        shift = round_ % len(cases)
        for code, simulator in cases[shift:] + cases[:shift]:
            us[code, simulator].append(1e6 * _measure(roots[code], simulator == "stand-in", calls) / calls)
            print(f"  round {round_ + 1}, {code}, {simulator}: {us[code, simulator][-1]:.1f} µs CPU per call",
                  flush=True)
    median = {f"{code}, {simulator}": statistics.median(us[code, simulator]) for code, simulator in cases}
    ratio = {simulator: median[f"now, {simulator}"] / median[f"before, {simulator}"]
             for simulator in ("stand-in", "real")}
    summary = (f"CPU per simulated call, {calls} misses in one run, median of {rounds}: stand-in simulator now "
               f"{median['now, stand-in']:.1f} µs, at {before} {median['before, stand-in']:.1f} µs: now ÷ before "
               f"{ratio['stand-in']:.2f} (target ≤ {TARGET}: {'met' if ratio['stand-in'] <= TARGET else 'missed'}); "
               f"real simulator now {median['now, real']:.1f} µs, at {before} {median['before, real']:.1f} µs: "
               f"{ratio['real']:.2f}")
    return {"summary": summary, "us_per_call": median, "now_over_before": ratio, "before": before,
            "rounds": {f"{code}, {simulator}": values for (code, simulator), values in us.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", default=BEFORE)
    args = parser.parse_args()
    emit("simulated call overhead", **measure(args.calls, args.rounds, args.before))


if __name__ == "__main__":
    main()
