-- `dev.py leaderboards`: the analyst snapshot's leaderboard views, by name.
SELECT view_name FROM duckdb_views() WHERE NOT internal AND view_name LIKE '%leaderboard%' ORDER BY view_name;
