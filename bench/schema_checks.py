"""Benchmark: the great-expectations schema checks at full size, the way a Dagster step runs them.

Builds a temporary warehouse with full-size-like tables (synthetic rows that pass every suite; seeded):
10 candidates × 2 judges; Creation 765 items (pairwise judgments: 765 × 2 orders per model × judge),
URS 1,846 questions × 2 samples, MMMT-IF 500 turns × 2 variants × 4 samples per model, and the
leaderboard tables. The GAP, interop and human-alignment tables stay empty (their checks still run).
One Creation partition (model-01 × judge-a) has 5 bad verdicts, so one check also reports failures.

With ``--home HOME`` (a home the demo ran in), a copy of that home's warehouse instead, and the calls
are the schema check evaluations in its Dagster event log (each check × partition the demo ran), with the
warehouse held open between them as the main job holds it for a run.

Then, in a fresh process per implementation (as a run process: the code location is loaded, great-
expectations is not), every schema check function is called with a real ``Warehouse`` resource and a
stand-in context that carries the partition key: first one pass over every call (it includes the GX
import, its context and each suite's building), then every call ``--repeats`` times. Reported: the median
seconds per check (target ≤ 0.2 s), all checks' seconds, the slowest check, the first pass, and the same
for the old path (the modules as they were at ``BEFORE``, read with ``git show``) with the ratios, and
whether both paths returned the same results. The two paths' processes alternate (``--rounds``), so a change in the
machine's load falls on both.

    .venv/bin/python bench/schema_checks.py [--repeats 5] [--rounds 2] [--mmmt-turns 500] [--home HOME]

(Not named checks.py: with bench/ first on sys.path that name would hide the ``checks`` package.)
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd

from _common import ROOT, emit

# The last commit with one GX expectation per column of a `columns_exist` spec and each frame loaded twice per
# validation (by the batch, then by its validator). (6083239, one GX context and suite per validation, no longer
# runs with today's suites: they import names its quality module did not have.)
BEFORE = "9222ade"
OLD_MODULES = {"benchwright.quality": "benchwright/quality.py", "checks.results": "checks/results.py",
               "checks.factories": "checks/factories.py"}
MODELS = [f"model-{k:02d}" for k in range(10)]
JUDGES = ["judge-a", "judge-b"]
CREATION_ITEMS, URS_ITEMS, CROSS_QUESTIONS = 765, 1846, 60
TARGET_S = 0.2
FAILING = ("model-01", "judge-a")  # the partition with bad verdicts
WORKER_PREFIX = "WORKER "


# --- the warehouse ----------------------------------------------------------------------------------

def _text(rng: np.random.Generator, n: int, length: int) -> np.ndarray:
    """n texts of about `length` characters (a few distinct ones, as compressible as real answers are not)."""
    pieces = ["".join(rng.choice(list("abcdefgh ij"), size=length)) for _ in range(16)]
    return np.array(pieces, dtype=object)[rng.integers(0, len(pieces), n)]


def _insert(con, table: str, rows: pd.DataFrame) -> None:
    """Insert `rows` by name; NOT NULL columns they lack get a plain default of their type."""
    info = con.execute("SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                       "WHERE table_name = ?", [table]).fetchall()
    defaults = {"VARCHAR": "bench", "INTEGER": 0, "DOUBLE": 0.0, "BOOLEAN": True}
    for name, data_type, nullable in info:
        if name not in rows and nullable == "NO":
            rows[name] = defaults[data_type]
    con.register("incoming_rows", rows)
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming_rows")
    con.unregister("incoming_rows")


def _grid(**columns) -> pd.DataFrame:
    """Every combination of the given values, first column slowest."""
    index = pd.MultiIndex.from_product(list(columns.values()), names=list(columns))
    return index.to_frame(index=False)


def build_warehouse(path: Path, mmmt_turns: int, seed: int = 0) -> dict[str, int]:
    from benchwright.mmmt_if.prompts import MAX_INSTRUCTIONS, SCORE_COLUMNS, VARIANTS
    from benchwright.pairwise import CANONICAL_VERDICTS
    from benchwright.urs.intents import INTENTS, LANGUAGES
    from resources.warehouse import Warehouse

    rng = np.random.default_rng(seed)
    creation_items = [f"creation-{i:04d}" for i in range(CREATION_ITEMS)]
    urs_items = [f"urs-{i:04d}" for i in range(URS_ITEMS)]
    turn_ids = [f"chat-{i // 10:03d}#t{i % 10 + 1:02d}" for i in range(mmmt_turns)]

    tables: dict[str, pd.DataFrame] = {}
    creation = _grid(model=MODELS, item_id=creation_items).assign(benchmark="creation", variant="vision", sample_index=0)
    urs = _grid(model=MODELS, item_id=urs_items, sample_index=[0, 1]).assign(benchmark="urs", variant="text")
    mmmt = _grid(model=MODELS, variant=list(VARIANTS), turn=turn_ids, sample_index=[0, 1, 2, 3])
    mmmt = mmmt.assign(benchmark="mmmt_if", item_id=mmmt["turn"] + "/" + mmmt["variant"]).drop(columns="turn")
    generations = pd.concat([creation, urs, mmmt], ignore_index=True)
    tables["generations"] = generations.assign(response=_text(rng, len(generations), 1500), error=None)

    pairwise = _grid(model=MODELS, judge=JUDGES, item_id=creation_items, judge_order=[1, 2])
    pairwise["candidate_position"] = np.where(pairwise["judge_order"] == 1, "B", "A")
    pairwise = pairwise.assign(
        raw_text=_text(rng, len(pairwise), 800), parse_ok=True, error=None, source="bench",
        verdict=np.array(CANONICAL_VERDICTS, dtype=object)[rng.integers(0, 5, len(pairwise))],
        outcome=np.array(["MB", "B", "T", "W", "MW"], dtype=object)[rng.integers(0, 5, len(pairwise))])
    failing = pairwise.index[(pairwise["model"] == FAILING[0]) & (pairwise["judge"] == FAILING[1])][:5]
    pairwise.loc[failing, "verdict"] = "A>>>B"
    tables["creation_pairwise_judgments"] = pairwise
    vfs = _grid(model=MODELS, judge=JUDGES, item_id=creation_items)
    tables["creation_vfs_judgments"] = vfs.assign(raw_text=_text(rng, len(vfs), 400), parse_ok=True, error=None,
                                                  score_a=rng.uniform(0, 10, len(vfs)),
                                                  score_b=rng.uniform(0, 10, len(vfs)))
    board = _grid(judge=JUDGES, model=MODELS, scope_value=["all", *(f"task-{t:02d}" for t in range(51)),
                                                          *(f"category-{c}" for c in range(8))])
    board["scope"] = np.where(board["scope_value"] == "all", "overall",
                              np.where(board["scope_value"].str.startswith("task"), "task", "category"))
    tables["creation_leaderboard"] = board.assign(reward=rng.uniform(-100, 100, len(board)),
                                                  win_rate=rng.uniform(0, 1, len(board)),
                                                  vfs=rng.uniform(0, 10, len(board)))
    quality = pd.DataFrame({"judge": JUDGES})
    for column in ("exact_consistency", "relaxed_consistency", "parse_rate", "p_prefer_first", "p_prefer_longer"):
        quality[column] = rng.uniform(0, 1, len(JUDGES))
    tables["judge_quality"] = quality

    intents = np.array(INTENTS, dtype=object)[rng.integers(0, len(INTENTS), URS_ITEMS)]
    languages = np.array(LANGUAGES, dtype=object)[rng.integers(0, len(LANGUAGES), URS_ITEMS)]
    tables["urs_items"] = pd.DataFrame({"item_id": urs_items, "intent": intents, "language": languages,
                                        "question": _text(rng, URS_ITEMS, 300)})
    item_facts = tables["urs_items"][["item_id", "intent", "language"]]
    judged = _grid(model=MODELS, judge=JUDGES, item_id=urs_items).merge(item_facts, on="item_id")
    tables["urs_judgments"] = judged.assign(reference_model="dataset", raw_text=_text(rng, len(judged), 600),
                                            final_score=rng.integers(1, 11, len(judged)),
                                            criterion_scores='{"a": 5}', parse_ok=True, error=None, source="bench")
    cross = _grid(judge=JUDGES, reference_model=MODELS, model=MODELS, item_id=urs_items[:CROSS_QUESTIONS])
    tables["urs_cross_judgments"] = cross.merge(item_facts, on="item_id").assign(
        raw_text=_text(rng, len(cross), 600), final_score=rng.integers(1, 11, len(cross)), parse_ok=True)
    urs_board = _grid(judge=JUDGES, model=MODELS, intent=["all", *INTENTS], language=["all", *LANGUAGES])
    tables["urs_leaderboard"] = urs_board.assign(final_score=rng.uniform(1, 10, len(urs_board)), n=100,
                                                 parse_failures=0)
    grid = _grid(judge=JUDGES, reference_model=MODELS, model=MODELS)
    tables["urs_cross_validation"] = grid.assign(mean_score=rng.uniform(1, 10, len(grid)), n=60, parse_failures=0)
    bias = _grid(judge=JUDGES, model=MODELS)
    tables["urs_rating_bias"] = bias.assign(mean_rating=rng.uniform(1, 10, len(bias)),
                                            bias=rng.uniform(-7, 2, len(bias)), n=60)

    scores = _grid(model=MODELS, variant=list(VARIANTS), turn_id=turn_ids, sample_index=[0, 1, 2, 3])
    n_instructions = rng.integers(0, MAX_INSTRUCTIONS + 1, len(scores))
    tables["mmmt_if_turn_scores"] = scores.assign(
        chat_id=scores["turn_id"].str.split("#").str[0], turn=1, n_instructions=n_instructions,
        n_followed=np.minimum(n_instructions, rng.integers(0, MAX_INSTRUCTIONS + 1, len(scores))),
        pif=rng.uniform(0, 1, len(scores)), error=None)
    rated = _grid(model=MODELS, judge=JUDGES, variant=list(VARIANTS), turn_id=turn_ids, sample_index=[0, 1, 2, 3])
    rated = rated.assign(chat_id=rated["turn_id"].str.split("#").str[0], turn=1, raw_text=_text(rng, len(rated), 500),
                         parse_ok=True, error=None, source="bench")
    for column in SCORE_COLUMNS:
        rated[column] = rng.integers(1, 11, len(rated)).astype(float)
    tables["mmmt_if_autorater_judgments"] = rated

    with Warehouse(database=str(path)).session() as con:
        for table, rows in tables.items():
            _insert(con, table, rows)
    return {table: len(rows) for table, rows in tables.items()}


# --- the worker: one fresh process per implementation -------------------------------------------------

def _load_old_modules() -> None:
    """Put the modules as they were at BEFORE in sys.modules before anything imports them."""
    for name, path in OLD_MODULES.items():
        source = subprocess.run(["git", "show", f"{BEFORE}:{path}"], cwd=ROOT, check=True, capture_output=True,
                                text=True).stdout
        module = types.ModuleType(name)
        module.__file__ = str(ROOT / path)
        sys.modules[name] = module
        exec(compile(source, f"{BEFORE}:{path}", "exec", dont_inherit=True), module.__dict__)


def _schema_checks() -> list:
    from checks.anchors import anchor_schema_checks
    from checks.calibrated import calibrated_schema_checks
    from checks.creation_human import creation_human_schema_checks
    from checks.gap import gap_schema_checks
    from checks.interop import interop_schema_checks
    from checks.mmmt_if import mmmt_if_metrics_schema, mmmt_if_schema_checks
    from checks.panels import panel_schema_checks
    from checks.schema import creation_schema_checks
    from checks.urs import urs_schema_checks

    return [*creation_schema_checks, *urs_schema_checks, *mmmt_if_schema_checks, mmmt_if_metrics_schema,
            *gap_schema_checks, *interop_schema_checks, *creation_human_schema_checks, *panel_schema_checks,
            *calibrated_schema_checks, *anchor_schema_checks]


def check_name(check) -> str:
    return next(iter(check.check_keys)).to_user_string()


def demo_calls(home: Path) -> list[tuple[str, str | None]]:
    """(check, partition) of every schema check evaluation in the home's Dagster event log, in its order."""
    import dagster as dg

    names = {check_name(check) for check in _schema_checks()}
    calls = []
    with dg.DagsterInstance.from_config(str(home / "dagster_home")) as instance:
        for run in sorted(instance.get_run_records(), key=lambda record: record.create_timestamp):
            for event in instance.all_logs(run.dagster_run.run_id,
                                           of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION):
                evaluation = event.dagster_event.event_specific_data
                name = f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}"
                if name in names:
                    calls.append((name, evaluation.partition))
    return calls


def _call(check, warehouse, model_judge: tuple[str, str] | str = (MODELS[0], JUDGES[0])):
    """Call a check's function as its step does: the warehouse resource and, when partitioned, a context
    with the partition key (model, or model × judge; or a partition key as the event log writes it)."""
    import dagster as dg

    function = check.node_def.compute_fn.decorated_fn
    kwargs = {"warehouse": warehouse}
    if "context" in inspect.signature(function).parameters:
        partitions = check.partitions_def
        if isinstance(model_judge, str):
            key = partitions.get_partition_key_from_str(model_judge) if isinstance(
                partitions, dg.MultiPartitionsDefinition) else model_judge
        elif isinstance(partitions, dg.MultiPartitionsDefinition):
            key = dg.MultiPartitionKey({"model": model_judge[0], "judge": model_judge[1]})
        else:
            key = model_judge[0] if partitions is not None else None
        kwargs["context"] = types.SimpleNamespace(partition_key=key)
    return function(**kwargs)


def _plain_result(result) -> dict:
    return {"passed": result.passed, "metadata": {k: getattr(v, "value", v) for k, v in result.metadata.items()}}


def worker(database: str, implementation: str, repeats: int, home: str | None = None) -> None:
    import contextlib
    import warnings

    warnings.filterwarnings("ignore")
    if implementation == "old":
        _load_old_modules()
    from resources.warehouse import Warehouse

    checks = _schema_checks()  # the code location's import: before any check runs, not timed
    warehouse = Warehouse(database=database)
    if home:
        by_name = {check_name(c): c for c in checks}
        # One entry per evaluation, so the medians and the total weigh each check as often as the demo ran it.
        calls = [(f"{name} [{partition}]" if partition else name, by_name[name], partition)
                 for name, partition in demo_calls(Path(home))]
    else:
        calls = [(check_name(c), c, (MODELS[0], JUDGES[0])) for c in checks]
        [pairwise] = [c for name, c, _ in calls if name.startswith("creation_pairwise_judgments:")]
        calls.append(("creation_pairwise_judgments:schema_and_ranges [failing partition]", pairwise, FAILING))
    # The demo's main job runs a run alone in its process, its warehouse sections sharing one connection.
    held = Warehouse.held_between(database) if home else contextlib.nullcontext()
    with held:
        _measure(calls, warehouse, repeats)


def _measure(calls: list, warehouse, repeats: int) -> None:
    # A first pass over every call: the first to validate imports GX and makes its context, and each suite is
    # built at its first use (as in a cold demo, where each check runs once per partition).
    results = {}
    started = time.perf_counter()
    for name, check, key in calls:
        results[name] = _plain_result(_call(check, warehouse, key))
    first_call = time.perf_counter() - started
    seconds: dict[str, list[float]] = {name: [] for name, _, _ in calls}
    for _ in range(repeats):
        for name, check, key in calls:
            started = time.perf_counter()
            result = _call(check, warehouse, key)
            seconds[name].append(time.perf_counter() - started)
            results[name] = _plain_result(result)
    print(WORKER_PREFIX + json.dumps({"first_call": first_call, "seconds": seconds, "results": results},
                                     default=str), flush=True)


def run_worker(database: Path, implementation: str, repeats: int, home: Path | None = None) -> dict:
    process = subprocess.run([sys.executable, __file__, "--worker", str(database), "--implementation", implementation,
                              "--repeats", str(repeats), *(["--home", str(home)] if home else [])], cwd=ROOT, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = [line for line in process.stdout.splitlines() if line.startswith(WORKER_PREFIX)]
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"{implementation} worker failed: {process.stderr.strip()[-2000:]}")
    return json.loads(lines[-1][len(WORKER_PREFIX):])


def summary_of(runs: list[dict]) -> dict:
    """Per check, the median over every round's repeats; the first pass, the median over rounds."""
    medians = {name: statistics.median(t for run in runs for t in run["seconds"][name]) for name in runs[0]["seconds"]}
    slowest = max(medians, key=medians.get)
    first_call = statistics.median(run["first_call"] for run in runs)
    return {"median": statistics.median(medians.values()), "total": sum(medians.values()),
            "slowest": slowest, "slowest_s": medians[slowest],
            "first_call": first_call, "one_time": first_call - sum(medians.values()), "per_check": medians}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--mmmt-turns", type=int, default=500)
    parser.add_argument("--home", type=Path, help="a home the demo ran in: its warehouse and checks, not full size")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--implementation", default="new", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.implementation, args.repeats, args.home)
        return 0

    # Without the git history (an exported copy) only the new path is measured; with it, an old path that
    # fails is an error, not a skipped comparison.
    has_before = subprocess.run(["git", "cat-file", "-e", f"{BEFORE}^{{commit}}"], cwd=ROOT,
                                capture_output=True).returncode == 0
    if not has_before:
        print(f"old path not measured: commit {BEFORE} is not in this checkout's history")
    new_runs, old_runs = [], []
    with tempfile.TemporaryDirectory(prefix="bench-checks-") as tmp:
        database = Path(tmp) / "warehouse.duckdb"
        if args.home:
            shutil.copyfile(args.home / "warehouse.duckdb", database)  # the home's own file stays untouched
            print(f"the demo's warehouse ({args.home}), {len(demo_calls(args.home))} schema check evaluations")
        else:
            started = time.perf_counter()
            sizes = build_warehouse(database, args.mmmt_turns)
            print(f"warehouse built in {time.perf_counter() - started:.1f} s: "
                  + ", ".join(f"{t} {n:,}" for t, n in sizes.items()))
        for _ in range(args.rounds):
            new_runs.append(run_worker(database, "new", args.repeats, args.home))
            if has_before:
                old_runs.append(run_worker(database, "old", args.repeats, args.home))

    new = summary_of(new_runs)
    old = summary_of(old_runs) if old_runs else None
    print(f"{'check':68} {'new s':>7}" + (f" {'old s':>7} {'old/new':>7}" if old else ""))
    for name, seconds in new["per_check"].items():
        line = f"{name:68} {seconds:7.3f}"
        if old:
            line += f" {old['per_check'][name]:7.3f} {old['per_check'][name] / seconds:7.1f}"
        print(line)
    same = bool(old_runs) and all(run["results"] == new_runs[0]["results"] for run in [*new_runs, *old_runs])
    met = "met" if new["median"] <= TARGET_S else "missed"
    size = f"on the demo's warehouse ({args.home})" if args.home else "at full size"
    summary = (f"{len(new['per_check'])} schema check calls {size}: median {new['median']:.3f} s per check, "
               f"all {new['total']:.2f} s "
               f"(target ≤ {TARGET_S} s: {met}), slowest {new['slowest']} {new['slowest_s']:.3f} s; the first pass "
               f"in a fresh process {new['first_call']:.2f} s ({new['one_time']:.2f} s more: GX import, context, suites)")
    if old:
        summary += (f"; before ({BEFORE}): median {old['median']:.3f} s, all {old['total']:.2f} s, slowest "
                    f"{old['slowest_s']:.3f} s, first pass {old['first_call']:.2f} s: new ÷ old per check (median) "
                    f"**{new['median'] / old['median']:.2f}**, all checks {new['total'] / old['total']:.2f}; "
                    f"same results: {'yes' if same else 'NO'}")
    emit("schema checks", summary, median_s=new["median"], total_s=new["total"], first_pass_s=new["first_call"],
         old_median_s=old["median"] if old else None, old_total_s=old["total"] if old else None,
         old_first_pass_s=old["first_call"] if old else None, same_results=same, load=os.getloadavg()[0])
    return 0 if not old_runs or same else 1


if __name__ == "__main__":
    raise SystemExit(main())
