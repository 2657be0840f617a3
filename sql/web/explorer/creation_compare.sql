-- Two candidates per Creation item under one judge: the mean of their verdict values (MB +2, B +1, T 0,
-- W -1, MW -2, both orders; parse failures and failed calls left out), a − b, and how far apart they are; only
-- the items where they differ, most different first (an item one side has no value for first of all), at most
-- $4 rows, `total` counting them all. Parameters: judge, model a, model b, rows, category (NULL: every one).
WITH v AS (
    SELECT model, item_id, avg(CASE outcome WHEN 'MB' THEN 2 WHEN 'B' THEN 1 WHEN 'T' THEN 0 WHEN 'W' THEN -1
                                            WHEN 'MW' THEN -2 END) AS value,
           string_agg(outcome, ' ' ORDER BY judge_order) AS outcomes
    FROM creation_pairwise_judgments
    WHERE judge = $1 AND model IN ($2, $3) AND source = 'benchwright'
    GROUP BY model, item_id
)
SELECT i.item_id, i.category, i.instruction AS prompt, NULL AS model, NULL AS turn,
       a.value AS value_a, a.outcomes AS outcomes_a, b.value AS value_b, b.outcomes AS outcomes_b,
       a.value - b.value AS difference, abs(a.value - b.value) AS disagreement, count(*) OVER () AS total
FROM creation_items i
JOIN v a ON a.item_id = i.item_id AND a.model = $2
JOIN v b ON b.item_id = i.item_id AND b.model = $3
WHERE a.value IS DISTINCT FROM b.value AND ($5 IS NULL OR i.category = $5)
ORDER BY disagreement DESC NULLS FIRST, i.item_id
LIMIT $4;
