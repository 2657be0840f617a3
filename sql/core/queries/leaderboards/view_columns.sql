-- `dev.py leaderboards`: a view's columns, in their order.
SELECT column_name FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index;
