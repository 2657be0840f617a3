-- scripts/compare_warehouses.py: a table's columns in the warehouse attached as `a`, in column order.
SELECT column_name FROM duckdb_columns() WHERE database_name = 'a' AND table_name = ? ORDER BY column_index;
