"""Benchmark: the main job's no-op, per asset partition, now and before the batched stale-status resolver.

The demo graph cold in a temporary home (with `--extra-candidates N`, N more simulated candidates, copies of
`sim-strong` under other slugs, for more partitions), then, alternately on the same instance and in this
process, `--rounds` no-ops of the main job as it is (scripts/orchestrate.py) and as it was at ``BEFORE`` (the
module read with ``git show``, on the same code location): CPU time of this process and wall time of each, per
asset partition looked at. Both must run nothing, make no call and count the same asset partitions.
Target (issue #30): ≤ 5 ms CPU per asset partition.

    .venv/bin/python bench/noop.py                 # the demo: ≈ 3 minutes here, mostly the cold run
    .venv/bin/python bench/noop.py --extra-candidates 4
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
import types
from pathlib import Path

from _common import ROOT, emit

BEFORE = "a26945f"  # the last commit whose main job asked Dagster's resolver one partition and parent at a time


def module_before():
    """scripts/orchestrate.py as it was at BEFORE, as a module of its own beside today's."""
    source = subprocess.run(["git", "show", f"{BEFORE}:scripts/orchestrate.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    module = types.ModuleType("orchestrate_before")
    exec(compile(source, f"{BEFORE}:scripts/orchestrate.py", "exec", dont_inherit=True), module.__dict__)
    return module


def timed_noop(materialize_everything, instance, resources) -> dict:
    wall, cpu = time.perf_counter(), time.process_time()
    summary = materialize_everything(instance, resources)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert (summary["runs"], summary["api_calls"]) == (0, 0), "a no-op must run nothing and call no model"
    return {"wall_s": wall, "cpu_s": cpu, "partitions": summary["up_to_date"]}


def measure(extra_candidates: int, rounds: int) -> dict:
    import dagster as dg

    from scripts import orchestrate
    from tests.support.pipeline import SHIPPED_JUDGES, SHIPPED_MODELS, resources_for, write_registry

    before = module_before()
    models = {**SHIPPED_MODELS, **{f"sim-copy-{n:02d}": {**SHIPPED_MODELS["sim-strong"],
                                                         "display_name": f"Simulated copy {n:02d}"}
                                   for n in range(1, extra_candidates + 1)}}
    with tempfile.TemporaryDirectory() as tmp, dg.instance_for_test() as instance:
        home = Path(tmp)
        write_registry(home, models, SHIPPED_JUDGES)
        resources = resources_for(home)
        started = time.perf_counter()
        cold = orchestrate.materialize_everything(instance, resources)
        cold_s = time.perf_counter() - started
        timings: dict[str, list[dict]] = {"after": [], "before": []}
        for _ in range(rounds):
            for name, module in (("before", before), ("after", orchestrate)):
                timings[name].append(timed_noop(module.materialize_everything, instance, resources))
    partitions = {t["partitions"] for runs in timings.values() for t in runs}
    assert len(partitions) == 1, f"the two main jobs looked at different numbers of asset partitions: {partitions}"
    count = partitions.pop()
    per = {name: {kind: statistics.median(t[f"{kind}_s"] for t in runs) / count * 1000 for kind in ("cpu", "wall")}
           for name, runs in timings.items()}
    noop_s = statistics.median(t["wall_s"] for t in timings["after"])
    summary = (f"cold {cold_s:.1f} s / {cold['runs']} runs; no-op over {count} asset partitions (median of {rounds}): "
               f"now {per['after']['cpu']:.1f} ms CPU, {per['after']['wall']:.1f} ms wall per asset partition "
               f"(target ≤ 5 ms CPU: {'met' if per['after']['cpu'] <= 5 else 'missed'}); before ({BEFORE}) "
               f"{per['before']['cpu']:.1f} ms CPU, {per['before']['wall']:.1f} ms wall: "
               f"{per['before']['cpu'] / per['after']['cpu']:.1f}× the CPU; no-op ÷ cold {noop_s / cold_s:.3f}")
    return {"summary": summary, "cold_s": cold_s, "asset_partitions": count, "noop_s": noop_s,
            **{f"{name}_{kind}_ms_per_partition": value
               for name, kinds in per.items() for kind, value in kinds.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra-candidates", type=int, default=0, help="more simulated candidates (default 0)")
    parser.add_argument("--rounds", type=int, default=3, help="no-ops of each main job, alternating (default 3)")
    args = parser.parse_args()
    emit("Main job no-op per asset partition, now and before", **measure(args.extra_candidates, args.rounds))


if __name__ == "__main__":
    main()
