-- The registered candidates' mean 0-1 score under one judge on the GAP-VQA val items the canaries were judged
-- on (benchwright/canaries.py): what a canary's mean score is compared with. Parameters: judge, item ids,
-- candidate slugs.
SELECT model, avg(score) AS figure
FROM gap_score_judgments
WHERE judge = ? AND list_contains(?, item_id) AND list_contains(?, model)
  AND judge_error IS NULL AND parse_ok
GROUP BY model
ORDER BY model;
