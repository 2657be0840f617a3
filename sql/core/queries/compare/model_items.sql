-- Two candidates item by item under the same judge (Creation: each candidate against the baseline).
-- A side's value on an item is the mean of its parsed orders on the candidate's scale (MW -2 .. MB 2):
-- win above 0, tie at 0, loss below; no parsed order, no result. Failed calls are left out, as in the
-- leaderboard. Each pair once, model_a < model_b (the view compare_models shows both ways).
WITH per_item AS (
    SELECT judge, model, item_id,
           avg(CASE outcome WHEN 'MB' THEN 2 WHEN 'B' THEN 1 WHEN 'T' THEN 0 WHEN 'W' THEN -1 WHEN 'MW' THEN -2 END)
               AS value
    FROM creation_pairwise_judgments
    WHERE error IS NULL AND source = 'benchwright'
    GROUP BY judge, model, item_id
),
results AS (
    SELECT *, CASE WHEN value > 0 THEN 'win' WHEN value < 0 THEN 'loss' WHEN value = 0 THEN 'tie' END AS result
    FROM per_item
)
SELECT a.judge, a.model AS model_a, b.model AS model_b, a.item_id,
       a.value AS value_a, b.value AS value_b, a.result AS result_a, b.result AS result_b,
       CASE WHEN a.result IS NOT NULL AND b.result IS NOT NULL
            THEN (a.result = 'win' AND b.result = 'loss') OR (a.result = 'loss' AND b.result = 'win') END AS flipped
FROM results a
JOIN results b ON a.judge = b.judge AND a.item_id = b.item_id AND a.model < b.model
ORDER BY a.judge, model_a, model_b, a.item_id
