-- The registered candidates' mean final score under one judge on the items the canaries were judged on
-- (benchwright/canaries.py): what a canary's mean score is compared with. Parameters: judge, item ids,
-- candidate slugs.
SELECT model, avg(final_score) AS figure
FROM urs_judgments
WHERE judge = ? AND list_contains(?, item_id) AND list_contains(?, model) AND source = 'benchwright'
  AND error IS NULL AND parse_ok
GROUP BY model
ORDER BY model;
