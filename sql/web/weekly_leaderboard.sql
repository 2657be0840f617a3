-- The GAP weekly leaderboard as the pipeline last published it, newest week first.
SELECT week, rank, player_id, points
FROM gap_weekly_leaderboard
ORDER BY week DESC, rank, player_id;
