-- Two candidates per URS item under one judge: their mean final scores, a − b, and how far apart they are; only the
-- items where they differ, most different first, at most $4 rows, `total` counting them all.
-- Parameters: judge, model a, model b, rows, intent and language (NULL: every one).
WITH v AS (
    SELECT model, item_id, avg(final_score) AS value, string_agg(CAST(final_score AS VARCHAR), ' ') AS outcomes
    FROM urs_judgments
    WHERE judge = $1 AND model IN ($2, $3) AND source = 'benchwright'
    GROUP BY model, item_id
)
SELECT i.item_id, i.intent AS category, i.question AS prompt, NULL AS model, NULL AS turn,
       a.value AS value_a, a.outcomes AS outcomes_a, b.value AS value_b, b.outcomes AS outcomes_b,
       a.value - b.value AS difference, abs(a.value - b.value) AS disagreement, count(*) OVER () AS total
FROM urs_items i
JOIN v a ON a.item_id = i.item_id AND a.model = $2
JOIN v b ON b.item_id = i.item_id AND b.model = $3
WHERE a.value IS DISTINCT FROM b.value AND ($5 IS NULL OR i.intent = $5) AND ($6 IS NULL OR i.language = $6)
ORDER BY disagreement DESC NULLS FIRST, i.item_id
LIMIT $4;
