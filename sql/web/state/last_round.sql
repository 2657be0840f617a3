-- An annotator's newest annotation round, finished or not. Parameter: handle.
SELECT * FROM annotation_rounds
WHERE handle = ?
ORDER BY started_at DESC
LIMIT 1;
