"""Compare two warehouses table by table, by SQL: which tables differ, and by how many rows each way.

    .venv/bin/python scripts/compare_warehouses.py BEFORE.duckdb AFTER.duckdb

Used to show that a refactor changed no result: the same demo run before and after must leave the same
rows. Columns that record when or how fast something happened (timestamps, latencies, costs of cached
calls) differ between any two runs and are left out of the comparison, and so are the tables that record
the runs themselves rather than results (the cost ledger: every run adds its own rows; the schema's digest).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb

# Columns that differ between two runs of the same work.
VOLATILE = {"ingested_at", "imported_at", "created_at", "published_at", "latency_ms", "answer_latency_ms",
            "loaded_at", "updated_at", "computed_at", "first_seen_at", "seen_at", "answer_tokens_per_s", "tokens_per_s"}
# Tables that are a history of runs (two runs of the same work add different rows by design), or of the schema
# (the digest of the DDL the file was last brought to: a refactor may change the DDL and no result).
HISTORY = {"llm_ledger", "warehouse_schema"}
COLUMNS_SQL = (Path(__file__).resolve().parents[1] / "sql" / "core" / "queries" / "compared_columns.sql").read_text()


def compare(before: str, after: str) -> list[tuple[str, int, int, int, int]]:
    """(table, rows before, rows after, rows only before, rows only after) for every table of either."""
    con = duckdb.connect()
    con.execute(f"ATTACH '{before}' AS a (READ_ONLY)")
    con.execute(f"ATTACH '{after}' AS b (READ_ONLY)")
    tables = lambda db: {r[0] for r in con.execute(  # noqa: E731
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ?", [db]).fetchall()}
    rows = []
    for table in sorted((tables("a") | tables("b")) - HISTORY):
        if table not in tables("a") or table not in tables("b"):
            rows.append((table, -1, -1, -1, -1))
            continue
        columns = [r[0] for r in con.execute(COLUMNS_SQL, [table]).fetchall() if r[0] not in VOLATILE]
        shown = ", ".join(f'"{c}"' for c in columns)
        count = lambda sql: con.execute(sql).fetchall()[0][0]  # noqa: E731
        rows.append((table, count(f"SELECT count(*) FROM a.{table}"), count(f"SELECT count(*) FROM b.{table}"),
                     count(f"SELECT count(*) FROM (SELECT {shown} FROM a.{table} EXCEPT ALL SELECT {shown} FROM b.{table})"),
                     count(f"SELECT count(*) FROM (SELECT {shown} FROM b.{table} EXCEPT ALL SELECT {shown} FROM a.{table})")))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    args = parser.parse_args(argv)
    differing = 0
    for table, n_before, n_after, only_before, only_after in compare(args.before, args.after):
        if n_before < 0:
            print(f"{table}: in one warehouse only")
            differing += 1
        elif only_before or only_after:
            print(f"{table}: {n_before} -> {n_after} rows; {only_before} only before, {only_after} only after")
            differing += 1
        else:
            print(f"{table}: same {n_before} rows")
    print(f"{differing} tables differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
