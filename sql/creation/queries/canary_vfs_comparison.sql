-- The registered candidates' Visual Factuality Score (the leaderboard's: the mean of their B scores, 0-10) under
-- one judge on the items the canaries were judged on (benchwright/canaries.py): what a canary's VFS is compared
-- with. Parameters: judge, item ids, candidate slugs.
SELECT model, avg(score_b) AS figure
FROM creation_vfs_judgments
WHERE judge = ? AND list_contains(?, item_id) AND list_contains(?, model) AND source = 'benchwright'
  AND error IS NULL AND parse_ok
GROUP BY model
ORDER BY model;
