-- Visual-factuality scores on one Creation item.
SELECT model, judge, score_a, score_b, parse_ok, parse_problem, error, raw_text, source
FROM creation_vfs_judgments WHERE item_id = ?
ORDER BY model, judge, source;
