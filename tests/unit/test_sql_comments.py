"""The warehouse documents itself from the SQL files' own comments (benchwright.sql_comments): parsing, and the
comments DuckDB then shows on a real database made from the shipped DDL and views."""

import duckdb

from benchwright.paths import sql_files
from benchwright.sql_comments import ddl_documentation, table_statements, view_statements

DDL = """-- Demo tables (a file's header).

-- Shared columns: what a name means everywhere.
-- model: registry slug of the model

-- Things people rated.
CREATE TABLE IF NOT EXISTS ratings (
    model       VARCHAR NOT NULL,
    score       DOUBLE,             -- 1-10; NULL when the verdict
                                    -- could not be parsed
    n           INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS others (
    model       VARCHAR NOT NULL,   -- registry slug
    n           INTEGER,            -- raters
    rater       VARCHAR
);
-- Old files gain the column.
ALTER TABLE others ADD COLUMN IF NOT EXISTS rater VARCHAR;
ALTER TABLE others ADD COLUMN IF NOT EXISTS weight DOUBLE;   -- how much a rating counts
"""

VIEW = """-- Best first, by model.
-- best: the highest score of the model
CREATE OR REPLACE VIEW best AS
SELECT model, max(score) AS best, round(avg(r.score), 2) AS mean_score, count(*) AS rows_seen
FROM ratings r GROUP BY model;
"""


def test_ddl_comments_beside_columns_blocks_above_tables_and_the_header_as_fallback():
    tables = ddl_documentation(DDL)
    assert tables["ratings"].comment == "Things people rated."
    assert tables["ratings"].columns["score"] == "1-10; NULL when the verdict could not be parsed"
    assert tables["ratings"].columns["n"] == ""
    assert tables["others"].columns["n"] == "raters"
    assert tables["others"].comment == "Demo tables (a file's header)."   # no block of its own
    assert tables["others"].columns["weight"] == "how much a rating counts"
    assert tables["others"].notes["rater"] == "Old files gain the column."


def test_statements_run_on_duckdb_and_views_take_header_source_and_same_name_comments():
    con = duckdb.connect()
    con.execute(DDL)
    present = {"ratings": ["model", "score", "n"], "others": ["model", "n", "rater", "weight"]}
    statements, words = table_statements([DDL], present)
    con.execute(";\n".join(statements))
    con.execute(VIEW)
    con.execute(";\n".join(view_statements(VIEW, {"best": ["model", "best", "mean_score", "rows_seen"]}, words)))
    comments = dict(con.execute("SELECT table_name || '.' || column_name, comment FROM duckdb_columns()").fetchall())
    assert comments["others.model"] == "registry slug"   # beside the column
    assert comments["ratings.model"] == "registry slug of the model"   # the shared meaning
    assert comments["others.rater"] == "Old files gain the column."
    assert comments["ratings.n"] is None   # not others.n's "raters": a name means what its table says
    assert comments["best.best"] == "the highest score of the model"   # the view's header
    assert comments["best.mean_score"].startswith("1-10")   # the column it is computed from
    assert comments["best.rows_seen"] is None
    assert con.execute("SELECT comment FROM duckdb_views() WHERE view_name = 'best'").fetchone()[0] == \
        "Best first, by model. best: the highest score of the model"
    assert con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = 'ratings'").fetchone()[0] == \
        "Things people rated."


def test_every_shipped_table_view_and_column_gets_a_comment():
    """On an empty database made from the shipped DDL and views, every table and view has a comment, and so
    does every column of every table and view: a new column comes with its `-- ...` (or a shared meaning)."""
    from resources.warehouse import _apply_schema, _main_columns  # the statements as the warehouse runs them

    con = duckdb.connect()
    _apply_schema(con)
    _, words = table_statements([path.read_text(encoding="utf-8") for path in sql_files("ddl")], {})
    for view_file in sql_files("views"):
        text = view_file.read_text(encoding="utf-8")
        con.execute(text)
        statements = view_statements(text, _main_columns(con, "VIEW"), words)
        con.execute(";\n".join(statements))
    assert con.execute("SELECT list(table_name) FROM duckdb_tables() WHERE comment IS NULL").fetchone()[0] is None
    assert con.execute("SELECT list(view_name) FROM duckdb_views() WHERE NOT internal AND comment IS NULL"
                       ).fetchone()[0] is None
    missing = con.execute("SELECT list(c.table_name || '.' || c.column_name) FROM duckdb_columns() c "
                          "JOIN duckdb_views() v ON v.view_name = c.table_name AND NOT v.internal "
                          "WHERE c.comment IS NULL").fetchone()[0]
    assert missing is None, f"view columns without a comment: {missing}"
    table_comments = dict(con.execute("SELECT c.table_name || '.' || c.column_name, c.comment FROM duckdb_columns() c "
                                      "JOIN duckdb_tables() t USING (table_name)").fetchall())
    missing = sorted(name for name, comment in table_comments.items() if comment is None)
    assert not missing, f"table columns without a comment (write one beside the column in sql/*/ddl): {missing}"
    # Beside the column in the DDL; the shared meaning of a name (00_core.sql's block, a benchmark's own).
    assert table_comments["generations.request_key"] == "response-cache key: re-parsing never needs a new call"
    assert table_comments["urs_leaderboard.judge"].startswith("registry slug of the judge")
    assert table_comments["urs_judgments.request_key"].startswith("the call's response-cache key")
    assert table_comments["mmmt_if_turn_scores.chat_id"] == table_comments["mmmt_if_human_ratings.chat_id"] \
        == "the chat's id (a source chat's; in the release, its conversation's)."
    assert table_comments["warehouse_schema.ddl_sha256"].startswith("sha256")
