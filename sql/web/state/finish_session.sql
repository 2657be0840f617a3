-- Close a game session; a session already closed keeps its first finishing time. Parameters: at, session_id.
UPDATE game_sessions SET finished_at = ?
WHERE session_id = ? AND finished_at IS NULL;
