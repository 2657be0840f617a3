-- Two judges item by item on the same judged unit (Creation: model × item × order), panels included.
-- A judge's result is the candidate's: win (MB, B), tie (T), loss (W, MW); an unparsed verdict has none.
-- Failed calls are left out. Each pair once, judge_a < judge_b (the view compare_judges shows both ways).
WITH judged AS (
    SELECT model, judge, item_id, judge_order,
           arg_min(verdict, rowid) AS verdict, arg_min(outcome, rowid) AS outcome  -- of duplicates, the first stored
    FROM creation_pairwise_judgments
    WHERE error IS NULL AND source = 'benchwright'
    GROUP BY model, judge, item_id, judge_order
),
results AS (
    SELECT *, CASE WHEN outcome IN ('MB', 'B') THEN 'win' WHEN outcome = 'T' THEN 'tie'
                   WHEN outcome IN ('W', 'MW') THEN 'loss' END AS result
    FROM judged
)
SELECT a.model, a.judge AS judge_a, b.judge AS judge_b, a.item_id, a.judge_order,
       a.verdict AS verdict_a, b.verdict AS verdict_b, a.result AS result_a, b.result AS result_b,
       CASE WHEN a.result IS NOT NULL AND b.result IS NOT NULL
            THEN (a.result = 'win' AND b.result = 'loss') OR (a.result = 'loss' AND b.result = 'win') END AS flipped
FROM results a
JOIN results b ON a.model = b.model AND a.item_id = b.item_id AND a.judge_order = b.judge_order AND a.judge < b.judge
ORDER BY a.model, judge_a, judge_b, a.item_id, a.judge_order
