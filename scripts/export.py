"""Export the analyst snapshot in the field's formats: every leaderboard view as CSV and Parquet, and the results as
Every Eval Ever records (one per benchmark × model × judge, validated against that project's schema).

    python3.11 dev.py export --to DIR
    .venv/bin/python scripts/export.py --to DIR --snapshot path/to/analyst.duckdb

What is written where: benchwright/exports.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchwright.exports import export  # noqa: E402
from benchwright.paths import SNAPSHOT_FILE, analyst_snapshot  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--to", required=True, type=Path, help="the folder to write (created if missing)")
    parser.add_argument("--snapshot", type=Path, default=None,
                        help=f"the analyst snapshot (default: <BENCHWRIGHT_HOME>/{SNAPSHOT_FILE})")
    args = parser.parse_args(argv)
    snapshot = analyst_snapshot(args.snapshot)
    if snapshot is None:
        return 1
    written = export(snapshot, args.to)
    print(f"{written['leaderboard_files']} leaderboard files in {args.to / 'leaderboards'}; "
          f"{written['every_eval_ever_records']} Every Eval Ever records ({written['every_eval_ever_results']} "
          f"results) in {args.to / 'every_eval_ever'}, valid against the schema")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
