"""Benchmark: the demo's cold run, this checkout against an older commit, interleaved in one run (issue 30 item 1).

The older commit (default 86789f8, main before the features of late November) is checked out into a temporary git
worktree that uses this checkout's .venv (its pins are a subset of ours) and sits beside a `shared` link, so its
relative paths to the real data resolve. Then, `--rounds` times, each side runs the README's main job
(`scripts/materialize_all.py`, every registered model and judge, simulated) in a fresh home of its own; the order
alternates each round so neither side always runs on a warmer machine. Per run: wall time, CPU time of the job and
every process under it, and from that home's Dagster event log the seconds of each step (each asset). Reported:
new ÷ old for wall and CPU (medians of the rounds), and the assets whose step time moved most.

    .venv/bin/python bench/versus_commit.py [--commit 86789f8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, emit, event_log_breakdown


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_demo(checkout: Path, home: Path) -> dict:
    """The main job of `checkout` in a fresh `home`: wall and CPU seconds, and seconds per step from its runs."""
    import dagster as dg
    from dagster._core.instance.ref import InstanceRef

    from resources import prepare_dagster_home

    env = {**os.environ, "BENCHWRIGHT_HOME": str(home), "PYTHONPATH": str(checkout),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("DAGSTER_HOME", None)
    cpu, started = _cpu_of_children(), time.perf_counter()
    done = subprocess.run([sys.executable, str(checkout / "scripts" / "materialize_all.py")], cwd=checkout, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall, cpu = time.perf_counter() - started, _cpu_of_children() - cpu
    if done.returncode:
        raise SystemExit(f"the main job of {checkout} failed ({done.returncode}):\n{done.stdout[-3000:]}")
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(prepare_dagster_home(home)))) as instance:
        run_ids = {record.dagster_run.run_id for record in instance.get_run_records()}
        split = event_log_breakdown(instance, run_ids)
    return {"wall_s": wall, "cpu_s": cpu, "runs": len(run_ids), "by_step_s": split["by_step_s"],
            "in_steps_s": split["in_steps_s"], "in_runs_s": split["in_runs_s"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commit", default="86789f8", help="the older commit to compare with")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    parser.add_argument("--keep-homes", type=Path, help="make the homes here and keep them (e.g. to compare their "
                        "warehouses with scripts/compare_warehouses.py)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-versus-") as tmp:
        tmp = Path(tmp)
        old = tmp / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(old), args.commit],
                       check=True)
        try:
            (old / ".venv").symlink_to(ROOT / ".venv")
            (tmp / "shared").symlink_to((ROOT.parent / "shared").resolve())
            results: dict[str, list[dict]] = {"old": [], "new": []}
            for round_ in range(args.rounds):
                order = [("old", old), ("new", ROOT)] if round_ % 2 == 0 else [("new", ROOT), ("old", old)]
                for side, checkout in order:
                    result = run_demo(checkout, (args.keep_homes or tmp) / f"home-{side}-{round_}")
                    results[side].append(result)
                    print(f"round {round_ + 1} {side}: {result['wall_s']:.1f} s wall, {result['cpu_s']:.1f} s CPU, "
                          f"{result['runs']} runs", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False)

    def median(side: str, field: str) -> float:
        return statistics.median(r[field] for r in results[side])

    wall = median("new", "wall_s") / median("old", "wall_s")
    cpu = median("new", "cpu_s") / median("old", "cpu_s")
    steps = {side: {} for side in results}
    for side, runs in results.items():
        for key in {k for r in runs for k in r["by_step_s"]}:
            steps[side][key] = statistics.median(r["by_step_s"].get(key, 0.0) for r in runs)
    moved = sorted(((steps["new"].get(k, 0.0) - steps["old"].get(k, 0.0), k) for k in steps["old"] | steps["new"]),
                   reverse=True)
    grew = ", ".join(f"{k} {d:+.1f} s" for d, k in moved[:6] if d > 0)
    shrank = ", ".join(f"{k} {d:+.1f} s" for d, k in sorted(moved)[:4] if d < 0)
    load = os.getloadavg()[0]
    print("where the time went (medians of the rounds, seconds): wall = steps + run overhead outside steps + "
          "orchestration between runs")
    for side in ("old", "new"):
        wall_s, runs_s, steps_s = (median(side, f) for f in ("wall_s", "in_runs_s", "in_steps_s"))
        print(f"  {side}: wall {wall_s:.1f} = steps {steps_s:.1f} + in runs outside steps {runs_s - steps_s:.1f} "
              f"+ outside runs {wall_s - runs_s:.1f}; {median(side, 'runs'):.0f} runs")
    print(f"  {'step (asset or check)':<58} {'old':>7} {'new':>7} {'new-old':>8}")
    for key in sorted(steps["old"] | steps["new"], key=lambda k: -max(steps["old"].get(k, 0), steps["new"].get(k, 0))):
        before, after = steps["old"].get(key, 0.0), steps["new"].get(key, 0.0)
        print(f"  {key:<58} {before:7.2f} {after:7.2f} {after - before:+8.2f}")
    if args.json:
        import json
        args.json.write_text(json.dumps(results, indent=1))
    emit("versus_commit",
         f"demo cold, new ÷ {args.commit} (median of {args.rounds} interleaved rounds, load {load:.1f} at the end): "
         f"wall {wall:.2f} ({median('old', 'wall_s'):.1f} → {median('new', 'wall_s'):.1f} s), CPU {cpu:.2f} "
         f"({median('old', 'cpu_s'):.1f} → {median('new', 'cpu_s'):.1f} s); runs {median('old', 'runs'):.0f} → "
         f"{median('new', 'runs'):.0f}; step time {median('old', 'in_steps_s'):.1f} → {median('new', 'in_steps_s'):.1f} s; "
         f"grew most: {grew or 'none'}; shrank most: {shrank or 'none'}",
         commit=args.commit, wall_ratio=round(wall, 3), cpu_ratio=round(cpu, 3), target=1.0,
         old_wall_s=median("old", "wall_s"), new_wall_s=median("new", "wall_s"))


if __name__ == "__main__":
    main()
