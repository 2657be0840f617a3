"""An interactive SQL shell on the analyst snapshot, read-only (the duckdb Python package has no shell of its own).

    python3.11 dev.py sql                       type SQL ending in `;`, results print as a table; .tables lists the
                                                tables and views with their comments, .columns NAME a table's or
                                                view's columns; Ctrl-C drops the statement being typed or
                                                stops a long query; Ctrl-D or .quit ends
    python3.11 dev.py sql -c "SELECT ..."       run one statement and print its result
    .venv/bin/python scripts/sql_shell.py --snapshot path/to/analyst.duckdb
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchwright.interrupts import is_interrupted_query  # noqa: E402
from benchwright.paths import SNAPSHOT_FILE, analyst_snapshot, sql_file  # noqa: E402
from benchwright.report import text_table  # noqa: E402

# The snapshot documents itself (COMMENT ON, benchwright/sql_comments.py): these show it.
_TABLES = sql_file("core/queries/shell_tables.sql").read_text(encoding="utf-8")
_COLUMNS = sql_file("core/queries/shell_columns.sql").read_text(encoding="utf-8")


def run(con: duckdb.DuckDBPyConnection, text: str) -> str:
    """What the shell prints for one input: a dot command or SQL statement(s)."""
    text = text.strip().rstrip(";").strip()
    if not text:
        return ""
    if text == ".tables":
        return text_table(con.execute(_TABLES).df())
    if text.startswith(".columns"):
        return text_table(con.execute(_COLUMNS, [text.split(maxsplit=1)[-1].strip()]).df())
    try:
        relation = con.sql(text)
        return "OK" if relation is None else text_table(relation.df())
    except duckdb.Error as error:
        return f"error: {error}"


def run_interruptibly(con: duckdb.DuckDBPyConnection, text: str) -> str:
    """`run`, where Ctrl-C stops a long query and the shell goes on. DuckDB ends the query on SIGINT and raises
    "Query interrupted" (a RuntimeError); a Ctrl-C outside the query is a KeyboardInterrupt."""
    try:
        return run(con, text)
    except KeyboardInterrupt:
        return "interrupted"
    except RuntimeError as error:
        if not is_interrupted_query(error):
            raise
        return "interrupted"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-c", "--command", help="run this SQL and exit")
    parser.add_argument("--snapshot", type=Path, default=None,
                        help=f"the analyst snapshot (default: <BENCHWRIGHT_HOME>/{SNAPSHOT_FILE})")
    args = parser.parse_args(argv)
    snapshot = analyst_snapshot(args.snapshot)
    if snapshot is None:
        return 1
    con = duckdb.connect(str(snapshot), read_only=True)
    try:
        if args.command is not None:
            output = run(con, args.command)
            print(output)
            return 1 if output.startswith("error:") else 0
        interactive = sys.stdin.isatty()
        if interactive:
            print(f"{snapshot} (read-only). SQL ends with `;`; .tables, .columns NAME, .quit")
        pending: list[str] = []
        while True:
            try:
                line = input("... " if pending else "sql> ") if interactive else sys.stdin.readline()
            except EOFError:
                break
            except KeyboardInterrupt:
                if not interactive:
                    raise
                print()  # Ctrl-C drops the statement being typed, as in other SQL shells; .quit or Ctrl-D ends
                pending = []
                continue
            if not interactive and line == "":
                break
            stripped = line.strip()
            if not pending and stripped in (".quit", ".exit"):
                break
            pending.append(line)
            if stripped.startswith(".") and len(pending) == 1 or stripped.endswith(";"):
                output = run_interruptibly(con, "\n".join(pending)) if interactive else run(con, "\n".join(pending))
                if output:
                    print(output, flush=True)
                pending = []
        if pending:
            print(run(con, "\n".join(pending)))
    finally:
        con.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
