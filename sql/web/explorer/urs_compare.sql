-- Two candidates per URS item under one judge: their mean final scores and how far apart they are.
-- Parameters: judge, model a, model b.
WITH v AS (
    SELECT model, item_id, avg(final_score) AS value, string_agg(CAST(final_score AS VARCHAR), ' ') AS outcomes
    FROM urs_judgments
    WHERE judge = $1 AND model IN ($2, $3) AND source = 'benchwright'
    GROUP BY model, item_id
)
SELECT i.item_id, i.intent AS category, i.question AS prompt, a.value AS value_a, a.outcomes AS outcomes_a,
       b.value AS value_b, b.outcomes AS outcomes_b, abs(a.value - b.value) AS disagreement
FROM urs_items i
JOIN v a ON a.item_id = i.item_id AND a.model = $2
JOIN v b ON b.item_id = i.item_id AND b.model = $3
WHERE a.value IS DISTINCT FROM b.value
ORDER BY disagreement DESC NULLS FIRST, i.item_id;
