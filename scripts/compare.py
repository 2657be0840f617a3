"""Compare two candidates, or two judges (panels included), item by item, from the published analyst snapshot.

    python3.11 dev.py compare models sim-strong sim-weak          # per judge: flips, win/loss deltas, agreement
    python3.11 dev.py compare judges sim-fair-judge sim-panel     # per model and over all: the same, plus exact agreement
    .venv/bin/python scripts/compare.py judges A B --model sim-weak --snapshot path/to/analyst.duckdb

Reads the views compare_models / compare_judges and the item tables behind them (comparison_model_items,
comparison_judge_items) that the `creation_comparisons` asset wrote; A is side a (deltas are a minus b).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchwright import compare  # noqa: E402
from benchwright.paths import SNAPSHOT_FILE, analyst_snapshot  # noqa: E402

_SUMMARY = {"models": "SELECT * FROM compare_models WHERE model_a = ? AND model_b = ?",
            "judges": "SELECT * FROM compare_judges WHERE judge_a = ? AND judge_b = ?"}
_ITEMS = {"models": "SELECT * FROM comparison_model_items WHERE list_contains([?, ?], model_a) AND list_contains([?, ?], model_b)",
          "judges": "SELECT * FROM comparison_judge_items WHERE list_contains([?, ?], judge_a) AND list_contains([?, ?], judge_b)"}


def comparison(snapshot: Path, kind: str, a: str, b: str, shared: str | None = None, max_items: int = 20) -> str:
    """The printed comparison of a and b; `shared` keeps one judge (models) or one model (judges)."""
    side, (shared_column,), _ = compare.KINDS[kind]
    con = duckdb.connect(str(snapshot), read_only=True)
    try:
        summary = con.execute(_SUMMARY[kind], [a, b]).df()
        items = compare.orient(con.execute(_ITEMS[kind], [a, b, a, b]).df(), side, a, b)
    finally:
        con.close()
    if shared:
        summary = summary[summary[shared_column].isin([shared, "all"] if kind == "judges" else [shared])]
        items = items[items[shared_column] == shared]
    return compare.report(kind, a, b, summary, items, max_items=max_items)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=sorted(compare.KINDS), help="compare two models or two judges")
    parser.add_argument("a", help="slug of side a")
    parser.add_argument("b", help="slug of side b")
    parser.add_argument("--judge", help="models: only this judge's verdicts")
    parser.add_argument("--model", help="judges: only this model's items")
    parser.add_argument("--items", type=int, default=20, help="flipped items shown (default 20)")
    parser.add_argument("--snapshot", type=Path, default=None,
                        help=f"analyst snapshot (default: {SNAPSHOT_FILE} under BENCHWRIGHT_HOME)")
    args = parser.parse_args(argv)
    snapshot = analyst_snapshot(args.snapshot)
    if snapshot is None:
        return 1
    print(comparison(snapshot, args.kind, args.a, args.b, args.judge if args.kind == "models" else args.model,
                     args.items))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
