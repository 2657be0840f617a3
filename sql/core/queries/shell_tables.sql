-- The SQL shell's `.tables` (scripts/sql_shell.py): every table and view with its comment.
SELECT table_name AS name, 'table' AS kind, comment FROM duckdb_tables() WHERE NOT internal
UNION ALL
SELECT view_name, 'view', comment FROM duckdb_views() WHERE NOT internal
ORDER BY name
