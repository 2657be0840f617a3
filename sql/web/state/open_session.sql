-- A player's game session in play, the newest if there were ever two. Parameter: handle.
SELECT * FROM game_sessions
WHERE handle = ? AND finished_at IS NULL
ORDER BY started_at DESC
LIMIT 1;
