-- Every table and view of this connection's database with its columns in order, for the COMMENT ON statements
-- (benchwright/sql_comments.py, resources/warehouse.py): kind 'TABLE' | 'VIEW'.
SELECT c.table_name AS name, CASE WHEN v.view_name IS NULL THEN 'TABLE' ELSE 'VIEW' END AS kind,
       list(c.column_name ORDER BY c.column_index) AS columns
FROM duckdb_columns() c
LEFT JOIN duckdb_views() v
  ON v.view_name = c.table_name AND v.database_name = c.database_name AND v.schema_name = c.schema_name
WHERE c.database_name = current_database() AND c.schema_name = 'main'
GROUP BY ALL
