-- The SQL shell's `.columns NAME` (scripts/sql_shell.py): a table's or view's columns with their types and comments.
SELECT column_name AS name, data_type AS type, comment
FROM duckdb_columns()
WHERE table_name = ?
ORDER BY column_index
