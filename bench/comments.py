"""Benchmark: what the warehouse's comments (benchwright/sql_comments.py) cost where they are made.

On a copy of a home's warehouse (a demo home: ``BENCHWRIGHT_HOME``, default .benchwright/), alternately and in one
process: the snapshot's publish (``Warehouse.publish_snapshot``: copy every table, apply the views) with the
COMMENT ON statements and without them (the statement makers replaced by ones that make none), and the DDL's
first application to a fresh in-memory database, with and without the tables' comments. Reported: medians of the
rounds and the ratios with ÷ without (target: publish ≤ 1.10; the DDL runs once per schema change).

    .venv/bin/python bench/comments.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duckdb  # noqa: E402

from bench._common import emit, machine  # noqa: E402
from benchwright.paths import WAREHOUSE_FILE, benchwright_home  # noqa: E402
from resources import warehouse as module  # noqa: E402


def _timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    source = benchwright_home() / WAREHOUSE_FILE
    if not source.exists():
        sys.exit(f"no warehouse at {source}: run `python3.11 dev.py demo` (or set BENCHWRIGHT_HOME) first")
    print(machine())
    made = module.view_statements, module._comment_tables
    none = (lambda *a, **k: [], lambda *a, **k: None)
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / WAREHOUSE_FILE
        shutil.copy(source, database)
        warehouse = module.Warehouse(database=str(database), snapshot_path=str(Path(folder) / "analyst.duckdb"))
        warehouse.publish_snapshot()   # brings the copy to today's DDL once, outside the rounds
        times: dict[str, list[float]] = {"publish_with": [], "publish_without": [], "ddl_with": [], "ddl_without": []}
        for _ in range(args.rounds):
            for label, makers in (("with", made), ("without", none)):
                module.view_statements, module._comment_tables = makers
                times[f"publish_{label}"].append(_timed(warehouse.publish_snapshot))
                con = duckdb.connect()
                times[f"ddl_{label}"].append(_timed(lambda: module._apply_schema(con)))
                con.close()
        module.view_statements, module._comment_tables = made
    median = {name: statistics.median(values) for name, values in times.items()}
    publish = median["publish_with"] / median["publish_without"]
    ddl = median["ddl_with"] / median["ddl_without"]
    emit("comments", f"publish {median['publish_with']:.2f} s with comments, {median['publish_without']:.2f} s "
                     f"without: ratio {publish:.2f} (target ≤ 1.10); DDL on a fresh database {median['ddl_with']:.2f} s "
                     f"vs {median['ddl_without']:.2f} s: ratio {ddl:.2f}; medians of {args.rounds} rounds",
         publish_ratio=publish, ddl_ratio=ddl, **median)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
