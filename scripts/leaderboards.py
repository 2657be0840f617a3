"""Quick answers from the terminal, read from the analyst snapshot (nothing runs, nothing is called).

    python3.11 dev.py leaderboards                              # every leaderboard view: rows, judges, controls
    python3.11 dev.py show creation --judge sim-fair-judge      # one leaderboard, with intervals where it has them
    python3.11 dev.py show creation --judge sim-fair-judge --control style
    .venv/bin/python scripts/leaderboards.py show urs --snapshot path/to/analyst.duckdb

`show NAME` takes a declared benchmark (benchwright.benchmarks.declared()); what it prints is the declaration's
`leaderboard` (a SQL file under sql/ over the snapshot's views), else its first report.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchwright import benchmarks  # noqa: E402
from benchwright.paths import ROOT, SNAPSHOT_FILE, analyst_snapshot, sql_file  # noqa: E402
from benchwright.report import rows_table  # noqa: E402

_PARAMETER = re.compile(r"\$(judge|control)\b")


def _sql(name: str) -> str:
    return sql_file(f"core/queries/leaderboards/{name}.sql").read_text(encoding="utf-8")


def _columns(con: duckdb.DuckDBPyConnection, view: str) -> list[str]:
    return [row[0] for row in con.execute(_sql("view_columns"), [view]).fetchall()]


def listing(con: duckdb.DuckDBPyConnection) -> str:
    """Every leaderboard view of the snapshot, one line each: its rows, judges (slugs), controls and sources."""
    views = [row[0] for row in con.execute(_sql("views")).fetchall()]
    lines = []
    for view in views:
        columns = _columns(con, view)
        # Each view's own column choices, quoted; the names come from the snapshot's catalogue, not from a user.
        distinct = {column: [str(v) for (v,) in con.execute(
            f'SELECT DISTINCT "{column}" FROM "{view}" WHERE "{column}" IS NOT NULL ORDER BY 1').fetchall()]
                    for column in ("judge", "control", "source") if column in columns}
        rows = con.execute(f'SELECT count(*) FROM "{view}"').fetchone()[0]
        lines.append((view, rows, ", ".join(distinct["judge"]) if "judge" in distinct else "(no judge)",
                      ", ".join(distinct.get("control", [])) or "-", ", ".join(distinct.get("source", [])) or "-"))
    if not lines:
        return "no leaderboard views in this snapshot"
    shown = {benchmark.name: benchmark for benchmark in benchmarks.declared()}
    table = rows_table(["view", "rows", "judges", "controls", "sources"], lines)
    return (f"{table}\n\nOne of them with its intervals: dev.py show {{{','.join(shown)}}} [--judge SLUG] "
            f"[--control CONTROL]; or query the snapshot: duckdb -readonly <home>/{SNAPSHOT_FILE}")


class Refused(ValueError):
    """A question the snapshot cannot answer as asked (the message says what it can answer)."""


def _query(benchmark: benchmarks.Benchmark) -> tuple[str, str]:
    report = benchmark.leaderboard or (benchmark.reports[0] if benchmark.reports else None)
    if report is None:
        raise Refused(f"{benchmark.name} declares no leaderboard")
    return report.title, (ROOT / "sql" / report.sql_file).read_text(encoding="utf-8")


def show(con: duckdb.DuckDBPyConnection, name: str, judge: str | None = None, control: str | None = None) -> str:
    """The benchmark's leaderboard for one judge (every judge when None), with the control asked for."""
    try:
        benchmark = benchmarks.named(name)
    except KeyError:
        raise Refused(f"no benchmark {name!r}; declared: {', '.join(b.name for b in benchmarks.declared())}") from None
    title, sql = _query(benchmark)
    takes = set(_PARAMETER.findall(sql))
    if judge is not None and "judge" not in takes:
        raise Refused(f"the {name} leaderboard has no judge (drop --judge)")
    if control is not None and "control" not in takes:
        raise Refused(f"the {name} leaderboard has no controls (drop --control)")
    asked = {"judge": judge, "control": control}
    # Plain rows, not a DataFrame: pandas' import alone would take a third of the second this may take.
    cursor = con.execute(sql, {key: asked[key] for key in takes})
    rows = cursor.fetchall()
    columns = [d[0] for d in cursor.description]
    if not rows and (judge is not None or control is not None):
        every = con.execute(sql, {key: None for key in takes}).fetchall()
        if not every:
            raise Refused(f"the {name} leaderboard has no rows yet: run `python3.11 dev.py demo` (or `run`)")
        known = sorted({r[columns.index("judge")] for r in every} - {None}) if "judge" in columns else []
        raise Refused(f"no {name} rows for judge {judge!r}" + (f" with control {control!r}" if control else "")
                      + (f"; judges: {', '.join(known)}" if known else "")
                      + ("; controls: none, style, length, markdown" if "control" in takes else ""))
    heading = title + (f"; judge {judge}" if judge else "") + (f"; control {control or 'none'}" if "control" in takes else "")
    return f"== {heading} ==\n{rows_table(columns, rows)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("leaderboards", help="list the snapshot's leaderboard views")
    one = commands.add_parser("show", help="print one benchmark's leaderboard")
    one.add_argument("benchmark", help="a declared benchmark: " + ", ".join(b.name for b in benchmarks.declared()))
    one.add_argument("--judge", help="only this judge's rows (slug; default every judge)")
    one.add_argument("--control", help="Creation's ratings: none (default), style, length or markdown")
    for command in commands.choices.values():
        command.add_argument("--snapshot", type=Path, default=None,
                             help=f"analyst snapshot (default: {SNAPSHOT_FILE} under BENCHWRIGHT_HOME)")
    args = parser.parse_args(argv)
    snapshot = analyst_snapshot(args.snapshot)
    if snapshot is None:
        return 1
    con = duckdb.connect(str(snapshot), read_only=True)
    try:
        print(listing(con) if args.command == "leaderboards" else
              show(con, args.benchmark, args.judge, args.control))
    except Refused as refused:
        print(refused, file=sys.stderr)
        return 2
    finally:
        con.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
