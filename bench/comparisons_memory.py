"""Benchmark: `creation_comparisons`' tables at 100 candidates, through pandas (before) and inside DuckDB (now).

The model item table is every pair of candidates × judge × item: 4,950 pairs × 2 judges × 765 items = 7,573,500
rows at the full-size workload with 100 candidates (`full_size.py --candidates 100`). Each way runs in a fresh
child process on a file-backed warehouse (`resources.warehouse.Warehouse`, temporary folder) holding synthetic
Creation judgments of that size (outcomes spread over the five verdicts by a hash, 2 orders per item):

- before: each of the four queries read into a DataFrame (`query_file`) and written back (`replace_rows`);
- now: the four filled by their queries in DuckDB (`Warehouse.fill_from_queries`), the summaries read back.

Per way: wall time of the asset's work and the child's peak RSS (from the kernel, `os.wait4`); both must leave
the same rows (compared by SQL). Not in `run_all.py` (≈ 1 minute, ≈ 5 GB at peak for the old way).

    .venv/bin/python bench/comparisons_memory.py [--candidates 100] [--judges 2] [--items 765]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, emit


def child(database: str, way: str) -> None:
    from assets.compare import QUERIES
    from resources.warehouse import Warehouse, read_sql

    warehouse = Warehouse(database=database)
    started = time.perf_counter()
    if way == "before":
        for table, query in QUERIES.items():
            warehouse.replace_rows(table, warehouse.query_file(query), match={})
    else:
        warehouse.fill_from_queries([(table, read_sql(query)) for table, query in QUERIES.items()])
    warehouse.query("SELECT * FROM comparison_models")
    warehouse.query("SELECT * FROM comparison_judges")
    print(json.dumps({"seconds": time.perf_counter() - started}))


def build(database: str, candidates: int, judges: int, items: int) -> int:
    from resources.warehouse import Warehouse

    warehouse = Warehouse(database=database)
    with warehouse.session() as con:
        con.execute(f"""
            INSERT INTO creation_pairwise_judgments BY NAME
            SELECT 'sim-writer-' || lpad(m::VARCHAR, 3, '0') AS model, 'sim-judge-' || j AS judge,
                   'item-' || lpad(i::VARCHAR, 4, '0') AS item_id, o + 1 AS judge_order,
                   CASE o WHEN 0 THEN 'B' ELSE 'A' END AS candidate_position, 'x' AS verdict, TRUE AS parse_ok,
                   ['MB', 'B', 'T', 'W', 'MW'][1 + (hash(m, j, i, o) % 5)::INTEGER] AS outcome, TRUE AS simulated,
                   'benchwright' AS source
            FROM range({candidates}) a(m), range({judges}) b(j), range({items}) c(i), range(2) d(o)""")
        return con.execute("SELECT count(*) FROM creation_pairwise_judgments").fetchone()[0]


def run_child(database: str, way: str) -> dict:
    process = subprocess.Popen([sys.executable, __file__, "--child", database, way], stdout=subprocess.PIPE,
                               cwd=ROOT, text=True)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"{way}: the child failed ({process.returncode})")
    return {**json.loads(output.strip().splitlines()[-1]), "peak_rss_mb": usage.ru_maxrss / 1024}


def same_rows(before: str, after: str) -> bool:
    import duckdb

    con = duckdb.connect()
    con.execute(f"ATTACH '{before}' AS a (READ_ONLY)")
    con.execute(f"ATTACH '{after}' AS b (READ_ONLY)")
    from assets.compare import QUERIES

    return all(con.execute(f"SELECT count(*) FROM ((FROM a.{t} EXCEPT ALL FROM b.{t}) UNION ALL "
                           f"(FROM b.{t} EXCEPT ALL FROM a.{t}))").fetchone()[0] == 0 for t in QUERIES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--judges", type=int, default=2)
    parser.add_argument("--items", type=int, default=765)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory(prefix="bench-comparisons-") as tmp:
        paths = {way: str(Path(tmp) / f"{way}.duckdb") for way in ("before", "now")}
        judgments = build(paths["before"], args.candidates, args.judges, args.items)
        build(paths["now"], args.candidates, args.judges, args.items)
        results = {way: run_child(path, way) for way, path in paths.items()}
        equal = same_rows(paths["before"], paths["now"])
    pairs = args.candidates * (args.candidates - 1) // 2
    before, now = results["before"], results["now"]
    summary = (f"{args.candidates} candidates × {args.judges} judges × {args.items} items ({judgments:,} judgments, "
               f"{pairs * args.judges * args.items:,} model item rows): through pandas {before['seconds']:.1f} s, "
               f"peak RSS {before['peak_rss_mb']:.0f} MB; inside DuckDB {now['seconds']:.1f} s, peak RSS "
               f"{now['peak_rss_mb']:.0f} MB; same rows: {equal}")
    emit("creation_comparisons through pandas vs inside DuckDB", summary, before=before, now=now, same_rows=equal)


if __name__ == "__main__":
    main()
