-- The content of one table's rows (those whose columns include the given JSON object's keys and values; '{}'
-- for all): the number of rows and an md5 over each row's md5, in the order of those hashes, so the same rows
-- in any order give the same text and any changed cell, added or removed row a different one.
-- Parameters: table name, row filter (JSON object).
SELECT count(*) AS n_rows, md5(coalesce(string_agg(row_hash, '' ORDER BY row_hash), '')) AS rows_md5
FROM (
    SELECT md5(CAST(to_json(t) AS VARCHAR)) AS row_hash
    FROM query_table(?) AS t
    WHERE json_contains(to_json(t), ?::JSON)
)
