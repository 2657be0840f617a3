-- The leaderboards `dev.py export` writes (benchwright/exports.py): the snapshot's views named like one.
SELECT view_name FROM duckdb_views()
WHERE NOT internal AND contains(view_name, 'leaderboard')
ORDER BY view_name
