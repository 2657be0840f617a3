"""Benchmark: the whole graph at the real benchmarks' size, cold, +1 candidate, +1 judge and no-op.

The workload, built in a temporary home (its own BENCHWRIGHT_HOME, DAGSTER_HOME and registry):

- Creation: 765 items, **synthetic**: the 15 sample items (sample_data/creation) repeated under new
  item ids (`lw-001-r07`), same pictures, the copy's number added to the instruction so that every
  copy is a request of its own (not a cache hit); the published benchmark has 765 items.
- URS: the real release's 1,846 questions (`urs/data/data_all.csv` under the shared external data
  folder, read in place, never copied into the repository).
- MMMT-IF: 6 chats, **synthetic**: the sample's 6 chats (our own writing) under new chat ids; more copies
  with `--scale` above 1. Six is what brings the cold run's calls near the 136,367 of the issue's
  measurement: each chat costs ≈ 1,240 calls (≈ 10 turns × 2 variants × 4 samples per candidate, and a
  judgment per turn and variant per candidate × judge). Expected split of the cold run: Creation
  ≈ 54,000, URS ≈ 75,000 (2 samples and 2 judgments per question and candidate, plus the cross grid),
  MMMT-IF ≈ 7,400, GAP ≈ 380; the run prints the measured split.
- GAP: the sample game logs.
- 10 simulated candidates (one text-only) and 2 simulated judges (`sim/...`, offline), plus the
  baseline and describer; then an 11th candidate, then a 3rd judge.

Four phases through the main job's graph (scripts/orchestrate.py): cold; +1 candidate; +1 judge; no-op.
Per phase: wall time, LLM calls and calls/s, cache hits, runs, the split by the Dagster event log (inside
steps / run overhead outside steps / between runs), peak RSS (this process + its largest child) and the
warehouse size. Then the issue's targets as ratios of this run: no-op ÷ cold ≤ 0.10; +1 candidate ≤ 2 ×
(cold ÷ candidates); +1 judge ≤ 2 × (cold judging ÷ judges), cold judging being the event log's step time
of the `judgments` group's assets.

    .venv/bin/python bench/full_size.py                 # full size (cold ≈ 6 minutes here)
    .venv/bin/python bench/full_size.py --scale 0.1     # a tenth of every dataset, for a quick look
    .venv/bin/python bench/full_size.py --scale 0.02 --candidates 4 --judges 2
                                                        # the demo's size: its 15 Creation items, 4 candidates
                                                        # and 2 judges (37 URS questions, 1 chat)
    .venv/bin/python bench/full_size.py --scale 0.02 --candidates 100 --cold-then-noop
                                                        # the no-op's cost per asset partition at 100 candidates

Each phase also reports the orchestrating process's CPU time and the asset partitions the main job looked at
(run or found up to date): a no-op makes no run, so its CPU ÷ asset partitions is the cost of deciding that
one partition has nothing new.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import yaml

from _common import ROOT, emit, event_log_breakdown, peak_rss_mb

CREATION_ITEMS = 765
MMMT_IF_CHATS = 6
CANDIDATES = 10
JUDGES = 2
BENCHMARKS = ("creation", "urs", "mmmt_if", "gap")


# --- the workload --------------------------------------------------------------------------------------

def repeated_jsonl(source: Path, target: Path, id_field: str, count: int, marked_field: str | None = None) -> None:
    """`count` records cycling through the source file's records, each copy under a new id (and, when
    `marked_field` is given, that text field ending with the copy's number); the images
    folder beside the source is copied beside the target (image paths are relative to the file and may not
    leave its folder)."""
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source.parent / "images", target.parent / "images")
    with target.open("w", encoding="utf-8") as out:
        for number in range(count):
            record = dict(records[number % len(records)])
            copy = number // len(records)
            record[id_field] = f"{record[id_field]}-r{copy:02d}"
            if marked_field:
                record[marked_field] = f"{record[marked_field]} (copy {copy})"
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def urs_questions(release_csv: Path, target: Path, scale: float) -> Path:
    """The release file itself at full scale; at a smaller scale, its first rows in the same layout."""
    if scale >= 1:
        return release_csv
    with release_csv.open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    keep = rows[: max(1, round(len(rows) * scale))]
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8-sig", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(keep)
    return target


def candidate(number: int) -> dict:
    """A simulated candidate; skills and verbosity spread so the leaderboards have an order."""
    entry = {"model": f"sim/writer-{number:02d}", "display_name": f"Simulated writer {number:02d}",
             "role": "candidate", "params": {"skill": round(0.2 + 0.07 * (number % 11), 2),
                                             "verbosity": round(0.7 + 0.1 * (number % 7), 2)}}
    if number == 4:
        entry["vision"] = False  # reads the image descriptions, as sim-text-only does in the demo
    return entry


def judge(number: int) -> dict:
    return {"model": f"sim/judge-{number}", "display_name": f"Simulated judge {number}", "role": "judge",
            "params": {"position_bias": [0.0, 0.7, 0.3][number % 3], "malformed_rate": 0.02}}


def write_registry(home: Path, candidates: int, judges: int) -> None:
    shipped = yaml.safe_load((ROOT / "registry" / "models.yaml").read_text())
    models = {slug: entry for slug, entry in shipped.items() if entry["role"] != "candidate"}
    models |= {f"sim-writer-{n:02d}": candidate(n) for n in range(1, candidates + 1)}
    (home / "models.yaml").write_text(yaml.safe_dump(models))
    (home / "judges.yaml").write_text(yaml.safe_dump({f"sim-judge-{n}": judge(n) for n in range(1, judges + 1)}))


def build_workload(home: Path, external: Path, scale: float) -> dict[str, dict]:
    """Write the datasets under the home; return the run config of the dataset assets."""
    release = external / "urs" / "data" / "data_all.csv"
    if not release.is_file():
        raise SystemExit(f"the URS release file is not at {release} (pass --data, the external data folder)")
    datasets = home / "datasets"
    creation = datasets / "creation" / "items.jsonl"
    chats = datasets / "mmmt_if" / "chats.jsonl"
    repeated_jsonl(ROOT / "sample_data" / "creation" / "items.jsonl", creation, "item_id",
                   max(1, round(CREATION_ITEMS * scale)), marked_field="instruction")
    repeated_jsonl(ROOT / "sample_data" / "mmmt_if" / "chats.jsonl", chats, "chat_id",
                   max(1, round(MMMT_IF_CHATS * scale)))
    urs = urs_questions(release, datasets / "urs" / "questions.csv", scale)
    return {"creation_items": {"path": str(creation)}, "urs_items": {"path": str(urs)},
            "mmmt_if_source_chats": {"path": str(chats)}}


# --- the phases --------------------------------------------------------------------------------------

def calls_by_benchmark(instance, run_ids: set[str]) -> dict[str, int]:
    """LLM calls of the given runs by benchmark, from each materialization's `api_calls` metadata."""
    import dagster as dg

    totals = dict.fromkeys(BENCHMARKS, 0)
    for run_id in run_ids:
        for event in instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION):
            materialization = event.dagster_event.event_specific_data.materialization
            value = materialization.metadata.get("api_calls")
            if value is None or value.value != value.value:
                continue
            name = materialization.asset_key.to_user_string()
            benchmark = next((b for b in BENCHMARKS if name.startswith(b + "_")), "other")
            totals[benchmark] = totals.get(benchmark, 0) + int(value.value)
    return totals


def run_phase(name: str, instance, resources: dict, asset_config: dict, home: Path, workers: int | None,
              parallel_runs: int | None = None) -> dict:
    from scripts.orchestrate import materialize_everything

    before = {r.dagster_run.run_id for r in instance.get_run_records()}
    started, cpu_started = time.perf_counter(), time.process_time()
    summary = materialize_everything(instance, resources, log=lambda _msg: None, force=False,
                                     asset_config=asset_config, workers=workers, parallel_runs=parallel_runs)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    asset_partitions = summary["up_to_date"] + len(summary["materialized"])
    run_ids = {r.dagster_run.run_id for r in instance.get_run_records()} - before
    split = event_log_breakdown(instance, run_ids)
    warehouse = home / "warehouse.duckdb"
    phase = {"phase": name, "wall_s": wall, "cpu_s": cpu, "asset_partitions": asset_partitions,
             "calls": summary["api_calls"], "cache_hits": summary["cache_hits"],
             "runs": summary["runs"], "failed_runs": summary["failed_runs"], "in_steps_s": split["in_steps_s"],
             "in_runs_s": split["in_runs_s"], "by_step_s": split["by_step_s"],
             "calls_by_benchmark": calls_by_benchmark(instance, run_ids), "peak_rss_mb": peak_rss_mb(),
             "warehouse_mb": warehouse.stat().st_size / 1e6 if warehouse.exists() else 0.0}
    if summary["failed_runs"]:
        raise SystemExit(f"{name}: {summary['failed_runs']} runs failed; the numbers would mean nothing")
    print(f"  {name}: {wall:.1f} s ({cpu:.1f} s CPU in this process), {phase['calls']} calls, {phase['runs']} runs "
          f"({phase['failed_runs']} failed), {asset_partitions} asset partitions, load {os.getloadavg()[0]:.1f}",
          flush=True)
    return phase


def phase_table(phases: list[dict]) -> str:
    lines = ["| phase | wall s | calls | calls/s | cache hits | runs | in steps | run overhead | between runs "
             "| peak RSS MB | warehouse MB |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in phases:
        wall = p["wall_s"]
        lines.append(f"| {p['phase']} | {wall:.1f} | {p['calls']} | {p['calls'] / wall:.0f} | {p['cache_hits']} "
                     f"| {p['runs']} | {p['in_steps_s'] / wall:.0%} | {(p['in_runs_s'] - p['in_steps_s']) / wall:.0%} "
                     f"| {(wall - p['in_runs_s']) / wall:.0%} | {p['peak_rss_mb']:.0f} | {p['warehouse_mb']:.1f} |")
    return "\n".join(lines)


def slowest_steps(phase: dict, count: int = 10) -> str:
    ranked = sorted(phase["by_step_s"].items(), key=lambda kv: -kv[1])[:count]
    return ", ".join(f"{key} {seconds:.1f} s" for key, seconds in ranked)


def steps_by_group(phase: dict, group_of: dict[str, str]) -> dict[str, float]:
    """Step seconds by the asset's group (generations, judgments, metrics ...); a step that is no asset's
    is a check's."""
    totals: dict[str, float] = {}
    for key, seconds in phase["by_step_s"].items():
        group = group_of.get(key, "checks")
        totals[group] = totals.get(group, 0.0) + seconds
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]))


def noop_per_partition(noop: dict) -> str:
    partitions = noop["asset_partitions"]
    return (f"no-op per asset partition ({partitions:,}): {noop['wall_s'] / partitions * 1000:.1f} ms wall, "
            f"{noop['cpu_s'] / partitions * 1000:.1f} ms CPU")


def measure(external: Path, scale: float, workers: int | None = None, candidates: int = CANDIDATES,
            judges: int = JUDGES, cold_then_noop: bool = False, parallel_runs: int | None = None) -> dict:
    import dagster as dg

    from benchwright.paths import count_setting
    from scripts.orchestrate import default_workers

    # What the main job will use: the options, else its own defaults for simulated models (BENCHWRIGHT_WORKERS /
    # BENCHWRIGHT_PARALLEL_RUNS, else 1), read as it reads them.
    workers = workers or default_workers()
    parallel_runs = parallel_runs or count_setting("BENCHWRIGHT_PARALLEL_RUNS", 1)

    with tempfile.TemporaryDirectory(prefix="benchwright-full-") as tmp:
        home = Path(tmp)
        # Set before anything reads them, so the runs (and any process they start) use this home.
        os.environ.update({"BENCHWRIGHT_HOME": str(home), "DAGSTER_HOME": str(home / "dagster_home"),
                           "BENCHWRIGHT_MODELS": str(home / "models.yaml"),
                           "BENCHWRIGHT_JUDGES": str(home / "judges.yaml")})
        from definitions import defs
        from resources import default_resources, prepare_dagster_home

        prepare_dagster_home(home)
        asset_config = build_workload(home, external, scale)
        graph = defs.resolve_asset_graph()
        group_of = {key.to_user_string(): graph.get(key).group_name for key in graph.get_all_asset_keys()}
        with dg.DagsterInstance.get() as instance:
            phases = []
            plan = [("cold", candidates, judges), ("no-op", candidates, judges)] if cold_then_noop else [
                ("cold", candidates, judges), ("+1 candidate", candidates + 1, judges),
                ("+1 judge", candidates + 1, judges + 1), ("no-op", candidates + 1, judges + 1)]
            for name, phase_candidates, phase_judges in plan:
                write_registry(home, phase_candidates, phase_judges)
                phases.append(run_phase(name, instance, default_resources(home), asset_config, home, workers,
                                        parallel_runs))
    for phase in phases:
        phase["steps_by_group_s"] = steps_by_group(phase, group_of)
    print(phase_table(phases))
    for phase in phases:
        groups = ", ".join(f"{group} {seconds:.1f} s" for group, seconds in phase["steps_by_group_s"].items())
        print(f"{phase['phase']}: step time by group: {groups}; slowest steps: {slowest_steps(phase)}")
    if cold_then_noop:
        cold, noop = phases
        summary = (f"scale {scale}, {candidates} candidates × {judges} judges, {workers} step process(es), "
                   f"{parallel_runs} run(s) at once; cold {cold['wall_s']:.1f} s, "
                   f"{cold['calls']:,} calls, {cold['runs']} runs; no-op {noop['wall_s']:.1f} s "
                   f"({noop['cpu_s']:.1f} s CPU) / {noop['runs']} runs / {noop['calls']} calls: ÷ cold "
                   f"{noop['wall_s'] / cold['wall_s']:.2f}; {noop_per_partition(noop)}")
        return {"summary": summary, "scale": scale, "candidates": candidates, "judges": judges, "workers": workers,
                "parallel_runs": parallel_runs,
                "noop_cpu_per_partition_ms": noop["cpu_s"] / noop["asset_partitions"] * 1000,
                "phases": [{k: v for k, v in p.items() if k != "by_step_s"} for p in phases]}
    cold, plus_model, plus_judge, noop = phases
    cold_judging = cold["steps_by_group_s"].get("judgments", 0.0)
    model_share, judge_share = cold["wall_s"] / candidates, cold_judging / judges
    targets = {
        "noop_over_cold": noop["wall_s"] / cold["wall_s"],
        "plus_candidate_over_share": plus_model["wall_s"] / model_share,
        "plus_judge_over_share": plus_judge["wall_s"] / judge_share,
    }
    verdict = lambda ratio, limit: "met" if ratio <= limit else "missed"  # noqa: E731
    split = ", ".join(f"{b} {n:,}" for b, n in cold["calls_by_benchmark"].items())
    summary = (f"scale {scale}, {workers} step process(es), {parallel_runs} run(s) at once; cold {cold['wall_s']:.1f} s, {cold['calls']:,} calls ({split}); "
               f"no-op {noop['wall_s']:.1f} s / {noop['calls']} calls: ÷ cold {targets['noop_over_cold']:.2f} "
               f"(≤ 0.10: {verdict(targets['noop_over_cold'], 0.10)}); +1 candidate {plus_model['wall_s']:.1f} s vs "
               f"share {model_share:.1f} s: {targets['plus_candidate_over_share']:.2f}× (≤ 2: "
               f"{verdict(targets['plus_candidate_over_share'], 2)}); +1 judge {plus_judge['wall_s']:.1f} s vs share "
               f"{judge_share:.1f} s (cold judging {cold_judging:.1f} s): {targets['plus_judge_over_share']:.2f}× "
               f"(≤ 2: {verdict(targets['plus_judge_over_share'], 2)}); {noop_per_partition(noop)}")
    return {"summary": summary, "scale": scale, "cold_judging_s": cold_judging, **targets,
            "phases": [{k: v for k, v in p.items() if k != "by_step_s"} for p in phases]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="share of every dataset to use (e.g. 0.1)")
    parser.add_argument("--candidates", type=int, default=CANDIDATES, help="simulated candidates (default 10)")
    parser.add_argument("--judges", type=int, default=JUDGES, help="simulated judges (default 2)")
    parser.add_argument("--cold-then-noop", action="store_true",
                        help="only the cold run and the no-op (no +1 candidate, no +1 judge)")
    parser.add_argument("--workers", type=int, default=None,
                        help="step processes at once (default: the main job's, BENCHWRIGHT_WORKERS or 1)")
    parser.add_argument("--parallel-runs", type=int, default=None,
                        help="runs of a stage at once (default: BENCHWRIGHT_PARALLEL_RUNS or 1, the main job's for "
                             "simulated models)")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "external",
                        help="the external data folder holding urs/data/data_all.csv")
    args = parser.parse_args()
    emit("Full size: cold / +1 candidate / +1 judge / no-op", **measure(args.data.resolve(), args.scale, args.workers,
                                                                             args.candidates, args.judges,
                                                                             args.cold_then_noop,
                                                                             args.parallel_runs))


if __name__ == "__main__":
    main()
