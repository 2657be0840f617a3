"""Benchmark: the Creation metrics over 1,000,000 synthetic pairwise judgments.

5 judges × 20 models × 5,000 items × 2 orders = 1,000,000 pairwise rows (verdicts uniform over the
five, 2 % unparsed, answer lengths random), plus 500,000 VFS rows and the 5,000 items spread over the
51 published tasks. Seeded. Timed, in one process:

- ``benchwright.creation.metrics.leaderboard`` (pandas; the creation_leaderboard asset's work);
- ``benchwright.creation.metrics.judge_quality`` (pandas; the judge_quality asset's work);
- the analyst view ``creation_verdicts`` (sql/views; DuckDB, in memory) over the same rows.

    .venv/bin/python bench/metrics_scale.py [--items 5000]    # rows = 5 × 20 × items × 2
"""

from __future__ import annotations

import argparse
import time

import duckdb
import numpy as np
import pandas as pd

from _common import ROOT, emit

JUDGES, MODELS = 5, 20


def synthetic(items: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    from benchwright.creation.loader import TASK_CATEGORIES
    from benchwright.pairwise import CANONICAL_VERDICTS, outcome

    rng = np.random.default_rng(seed)
    item_ids = np.array([f"item-{i:05d}" for i in range(items)], dtype=object)
    tasks = rng.choice(np.array(sorted(TASK_CATEGORIES), dtype=object), size=items)
    items_df = pd.DataFrame({"item_id": item_ids, "task": tasks, "category": [TASK_CATEGORIES[t] for t in tasks]})

    judges = np.array([f"judge-{k}" for k in range(JUDGES)], dtype=object)
    models = np.array([f"model-{k:02d}" for k in range(MODELS)], dtype=object)
    n = JUDGES * MODELS * items * 2
    order = np.tile([1, 2], n // 2)
    position = np.where(order == 1, "B", "A").astype(object)
    verdict = np.array(CANONICAL_VERDICTS, dtype=object)[rng.integers(0, 5, n)]
    parsed = rng.random(n) >= 0.02
    verdict[~parsed] = None
    outcome_of = {(v, p): outcome(v, p) for v in (*CANONICAL_VERDICTS, None) for p in ("A", "B")}
    pairwise = pd.DataFrame({
        "model": np.tile(np.repeat(models, items * 2), JUDGES), "judge": np.repeat(judges, MODELS * items * 2),
        "item_id": np.tile(np.repeat(item_ids, 2), JUDGES * MODELS), "judge_order": order,
        "candidate_position": position, "raw_text": "", "verdict": verdict, "parse_ok": parsed,
        "outcome": [outcome_of[(v, p)] for v, p in zip(verdict, position)], "error": None,
        "candidate_len": rng.integers(100, 3000, n), "baseline_len": rng.integers(100, 3000, n),
        "request_key": "k", "simulated": True, "source": "bench",
    })
    m = JUDGES * MODELS * items
    vfs_parsed = rng.random(m) >= 0.02
    vfs = pd.DataFrame({
        "model": np.tile(np.repeat(models, items), JUDGES), "judge": np.repeat(judges, MODELS * items),
        "item_id": np.tile(item_ids, JUDGES * MODELS), "raw_text": "", "score_a": rng.uniform(0, 10, m),
        "score_b": np.where(vfs_parsed, rng.uniform(0, 10, m), np.nan), "parse_ok": vfs_parsed, "error": None,
        "request_key": "k", "simulated": True, "source": "bench",
    })
    return pairwise, vfs, items_df


def verdicts_view_seconds(pairwise: pd.DataFrame, items_df: pd.DataFrame) -> float:
    con = duckdb.connect()
    try:
        for ddl in sorted((ROOT / "sql" / "ddl").glob("*.sql")):
            con.execute(ddl.read_text(encoding="utf-8"))
        con.register("incoming_pairwise", pairwise)
        con.execute("INSERT INTO creation_pairwise_judgments BY NAME SELECT * FROM incoming_pairwise")
        full_items = items_df.assign(dataset="bench", role="r", background="b", instruction="i", requirements=[["x"]] * len(items_df),
                                     subjective_criteria="c", image_hashes=[["h"]] * len(items_df))
        con.register("incoming_items", full_items)
        con.execute("INSERT INTO creation_items BY NAME SELECT * FROM incoming_items")
        con.execute((ROOT / "sql" / "views" / "creation_verdicts.sql").read_text(encoding="utf-8"))
        started = time.perf_counter()
        con.execute("CREATE TABLE verdicts AS SELECT * FROM creation_verdicts").fetchall()
        return time.perf_counter() - started
    finally:
        con.close()


def measure(items: int = 5000) -> dict:
    from benchwright.creation import metrics

    made = time.perf_counter()
    pairwise, vfs, items_df = synthetic(items)
    made = time.perf_counter() - made
    print(f"{len(pairwise):,} pairwise rows, {len(vfs):,} VFS rows, {len(items_df):,} items made in {made:.1f} s", flush=True)

    started = time.perf_counter()
    board = metrics.leaderboard(pairwise, vfs, items_df)
    leaderboard_s = time.perf_counter() - started
    print(f"leaderboard: {leaderboard_s:.1f} s ({len(board):,} rows)", flush=True)

    started = time.perf_counter()
    quality = metrics.judge_quality(pairwise)
    quality_s = time.perf_counter() - started
    pairs = int(quality["pairs"].sum())
    print(f"judge_quality: {quality_s:.1f} s ({pairs:,} pairs, {1e6 * quality_s / max(pairs, 1):.0f} µs per pair)", flush=True)

    view_s = verdicts_view_seconds(pairwise, items_df)
    summary = (f"{len(pairwise):,} pairwise + {len(vfs):,} VFS rows: leaderboard {leaderboard_s:.1f} s, judge_quality "
               f"{quality_s:.1f} s ({1e6 * quality_s / max(pairs, 1):.1f} µs per (model, item) pair), "
               f"view creation_verdicts in DuckDB {view_s:.2f} s")
    return {"summary": summary, "rows": len(pairwise), "leaderboard_s": leaderboard_s, "judge_quality_s": quality_s,
            "verdicts_view_s": view_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=5000)
    args = parser.parse_args()
    emit("Creation metrics at scale", **measure(args.items))


if __name__ == "__main__":
    main()
