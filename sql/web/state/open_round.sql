-- An annotator's annotation round in progress, the newest if there were ever two. Parameter: handle.
SELECT * FROM annotation_rounds
WHERE handle = ? AND finished_at IS NULL
ORDER BY started_at DESC
LIMIT 1;
