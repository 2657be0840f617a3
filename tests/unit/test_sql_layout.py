"""Where SQL lives: one folder per area under sql/ (core, each benchmark, the web app), and no statement of more
than one clause written inside the Python wiring."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SQL = ROOT / "sql"
BENCHMARKS = sorted(path.parent.name for path in (ROOT / "benchwright").glob("*/README.md"))
KINDS = {"ddl", "views", "queries", "checks"}

# The wiring whose SQL belongs in sql/.
WIRING = ["assets", "checks", "sensors", "resources", "scripts", "web"]
STATEMENT = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH)\b")
# A clause beyond SELECT ... FROM ... WHERE, or a nested query: such a statement goes to a file.
MORE_THAN_ONE_CLAUSE = re.compile(r"\b(JOIN|GROUP BY|ORDER BY|HAVING|UNION|EXCEPT|INTERSECT|LIMIT|QUALIFY|OVER)\b"
                                  r"|\(\s*SELECT\b|^\s*WITH\b")
# Statements put together at run time from table and column names, which no file could hold.
BUILT_FROM_NAMES = {
    ("resources/warehouse.py", "SELECT {} FROM {} t JOIN incoming_keys i ON {}"),  # keyed ingest of any table
    ("scripts/compare_warehouses.py", "SELECT count(*) FROM (SELECT {} FROM a.{} EXCEPT ALL SELECT {} FROM b.{})"),
    ("scripts/compare_warehouses.py", "SELECT count(*) FROM (SELECT {} FROM b.{} EXCEPT ALL SELECT {} FROM a.{})"),
    # a leaderboard view's distinct judges, controls or sources, for `dev.py leaderboards`
    ("scripts/leaderboards.py", 'SELECT DISTINCT "{}" FROM "{}" WHERE "{}" IS NOT NULL ORDER BY 1'),
}


def _areas() -> set[str]:
    return {"core", "web", *BENCHMARKS}


def test_every_sql_file_is_in_an_area_and_a_kind():
    assert {"creation", "urs", "mmmt_if", "gap"} <= set(BENCHMARKS)
    misplaced = []
    for path in SQL.rglob("*.sql"):
        area, *rest = path.relative_to(SQL).parts
        if area not in _areas() or (area != "web" and (len(rest) < 2 or rest[0] not in KINDS)):
            misplaced.append(str(path.relative_to(ROOT)))
    assert not misplaced, misplaced


def test_a_benchmark_s_tables_and_views_are_in_its_own_folder():
    """What is named after a benchmark (`creation_...`) is created in that benchmark's folder, so one benchmark's
    SQL is one folder."""
    elsewhere = []
    for path in SQL.rglob("*.sql"):
        area = path.relative_to(SQL).parts[0]
        names = re.findall(r"CREATE (?:OR REPLACE )?(?:TEMP )?(?:TABLE|VIEW)(?: IF NOT EXISTS)? (\w+)", path.read_text())
        if path.parent.name == "views":
            names.append(path.stem)
        for name in names:
            owner = next((b for b in BENCHMARKS if name.startswith(f"{b}_")), None)
            if owner and owner != area:
                elsewhere.append(f"{name} in {path.relative_to(ROOT)}")
    assert not elsewhere, elsewhere


def _sql_literals(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # An f-string is read whole, its holes shown as {}; the pieces between its holes are not strings of their own.
    pieces = {id(value) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for value in node.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in pieces:
            yield node.lineno, node.value
        elif isinstance(node, ast.JoinedStr):
            yield node.lineno, "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)


def test_no_statement_of_more_than_one_clause_is_written_in_python():
    found = []
    for folder in WIRING:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = str(path.relative_to(ROOT))
            for line, text in _sql_literals(path):
                shown = " ".join(text.split())
                if STATEMENT.match(text) and MORE_THAN_ONE_CLAUSE.search(text) \
                        and (relative, shown) not in BUILT_FROM_NAMES:
                    found.append(f"{relative}:{line}: {shown[:100]}")
    assert not found, "\n".join(found)


def test_the_check_sees_a_statement_of_more_than_one_clause(tmp_path):
    """The check above would flag a query like the ones moved to files (it is not vacuous)."""
    sample = tmp_path / "sample.py"
    sample.write_text('q = warehouse.query("SELECT * FROM urs_items ORDER BY item_id")\n'
                      'r = warehouse.query("SELECT * FROM urs_items WHERE item_id = ?", [1])\n')
    flagged = [text for _, text in _sql_literals(sample) if STATEMENT.match(text) and MORE_THAN_ONE_CLAUSE.search(text)]
    assert flagged == ["SELECT * FROM urs_items ORDER BY item_id"]
