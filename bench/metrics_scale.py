"""Benchmark: the Creation metrics over 1,000,000 synthetic pairwise judgments.

5 judges × 20 models × 5,000 items × 2 orders = 1,000,000 pairwise rows (verdicts uniform over the
five, 2 % unparsed, answer lengths random), plus 500,000 VFS rows and the 5,000 items spread over the
51 published tasks. Seeded. The rows go into a warehouse file; timed, in one process:

- the creation_leaderboard asset's work: ``sql/creation/queries/leaderboard.sql`` through
  ``Warehouse.query_file`` (DuckDB aggregates; the frame it returns included);
- the judge_quality asset's work: ``sql/creation/queries/judge_quality.sql``, the same way;
  the two together against the 2 s target of issue 15;
- the analyst view ``creation_verdicts`` (sql/*/views) over the same rows;
- the pandas reference ``benchwright.creation.metrics.leaderboard`` / ``judge_quality`` (what the assets
  ran before) on the rows they read, checked equal to the SQL's tables (``--no-reference`` skips it).

    .venv/bin/python bench/metrics_scale.py [--items 5000] [--no-reference]   # rows = 5 × 20 × items × 2
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from _common import ROOT, emit
from resources.warehouse import Warehouse

JUDGES, MODELS = 5, 20
TARGET_S = 2.0  # issue 15: leaderboard and judge quality over 1,000,000 judgments


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


def load_warehouse(folder: Path, pairwise: pd.DataFrame, vfs: pd.DataFrame, items_df: pd.DataFrame) -> Warehouse:
    """A warehouse file holding the synthetic rows, opened the way the assets open it."""
    warehouse = Warehouse(database=str(folder / "warehouse.duckdb"))
    full_items = items_df.assign(dataset="bench", role="r", background="b", instruction="i", requirements=[["x"]] * len(items_df),
                                 subjective_criteria="c", image_hashes=[["h"]] * len(items_df))
    warehouse.write_tables([("creation_pairwise_judgments", pairwise, None), ("creation_vfs_judgments", vfs, None),
                            ("creation_items", full_items, None)])
    return warehouse


def timed(work):
    started = time.perf_counter()
    result = work()
    return result, time.perf_counter() - started


def measure(items: int = 5000, reference: bool = True) -> dict:
    from benchwright.creation import metrics

    made = time.perf_counter()
    pairwise, vfs, items_df = synthetic(items)
    made = time.perf_counter() - made
    print(f"{len(pairwise):,} pairwise rows, {len(vfs):,} VFS rows, {len(items_df):,} items made in {made:.1f} s", flush=True)

    with tempfile.TemporaryDirectory() as folder:
        warehouse = load_warehouse(Path(folder), pairwise, vfs, items_df)
        del pairwise, vfs
        # What the assets run: the query files in DuckDB over the warehouse tables (lock, connection and
        # the result frame included).
        board, leaderboard_s = timed(lambda: warehouse.query_file(metrics.LEADERBOARD_SQL))
        print(f"leaderboard (SQL): {leaderboard_s:.2f} s ({len(board):,} rows)", flush=True)
        quality, quality_s = timed(lambda: warehouse.query_file(metrics.JUDGE_QUALITY_SQL))
        print(f"judge_quality (SQL): {quality_s:.2f} s ({int(quality['pairs'].sum()):,} pairs)", flush=True)
        view_s = verdicts_view_seconds(warehouse)

        result = {"rows": JUDGES * MODELS * items * 2, "leaderboard_s": leaderboard_s, "judge_quality_s": quality_s,
                  "verdicts_view_s": view_s, "target_ratio": (leaderboard_s + quality_s) / TARGET_S}
        summary = (f"{result['rows']:,} pairwise + {result['rows'] // 2:,} VFS rows, in DuckDB as the assets run them: "
                   f"leaderboard {leaderboard_s:.2f} s + judge_quality {quality_s:.2f} s = "
                   f"{leaderboard_s + quality_s:.2f} s, {result['target_ratio']:.2f} of the {TARGET_S:.0f} s target; "
                   f"view creation_verdicts {view_s:.2f} s")
        if reference:
            # The pandas reference (what the assets did before) on the rows the assets used to read.
            answered_pairwise = warehouse.query("SELECT * FROM creation_pairwise_judgments WHERE error IS NULL")
            answered_vfs = warehouse.query("SELECT * FROM creation_vfs_judgments WHERE error IS NULL")
            item_scopes = warehouse.query("SELECT item_id, category, task FROM creation_items")
            python_board, python_board_s = timed(lambda: metrics.leaderboard(answered_pairwise, answered_vfs, item_scopes))
            python_quality, python_quality_s = timed(lambda: metrics.judge_quality(answered_pairwise))
            print(f"pandas reference: leaderboard {python_board_s:.1f} s, judge_quality {python_quality_s:.1f} s", flush=True)
            pd.testing.assert_frame_equal(board, python_board, check_dtype=False, check_exact=False, rtol=1e-12)
            pd.testing.assert_frame_equal(quality, python_quality, check_dtype=False, check_exact=False, rtol=1e-12)
            result.update(python_leaderboard_s=python_board_s, python_judge_quality_s=python_quality_s)
            summary += (f"; the pandas reference took {python_board_s:.1f} s + {python_quality_s:.1f} s "
                        f"({(python_board_s + python_quality_s) / (leaderboard_s + quality_s):.0f}x the SQL), same tables")
    return {"summary": summary, **result}


def verdicts_view_seconds(warehouse: Warehouse) -> float:
    with warehouse.session() as con:
        con.execute((ROOT / "sql" / "creation" / "views" / "creation_verdicts.sql").read_text(encoding="utf-8"))
        started = time.perf_counter()
        con.execute("CREATE TEMP TABLE verdicts AS SELECT * FROM creation_verdicts")
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--no-reference", action="store_true", help="skip the pandas reference (about 10 s)")
    args = parser.parse_args()
    emit("Creation metrics at scale", **measure(args.items, reference=not args.no_reference))


if __name__ == "__main__":
    main()
