-- The registered candidates' win rate against the baseline (the leaderboard's: (MB + B) / parsed judgments,
-- both orders) under one judge on the items the canaries were judged on (benchwright/canaries.py): what a
-- canary's win rate is compared with. Parameters: judge, item ids, candidate slugs.
SELECT model, avg(CASE WHEN outcome IN ('MB', 'B') THEN 1.0 ELSE 0.0 END) AS figure
FROM creation_pairwise_judgments
WHERE judge = ? AND list_contains(?, item_id) AND list_contains(?, model) AND source = 'benchwright'
  AND error IS NULL AND parse_ok
GROUP BY model
ORDER BY model;
