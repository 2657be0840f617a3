-- A player's newest game session, finished or not. Parameter: handle.
SELECT * FROM game_sessions
WHERE handle = ?
ORDER BY started_at DESC
LIMIT 1;
