-- Close an annotation round; a round already closed keeps its first finishing time. Parameters: at, round_id.
UPDATE annotation_rounds SET finished_at = ?
WHERE round_id = ? AND finished_at IS NULL;
