-- Two candidates per GAP-VQA item under one judge: the judge's 0-1 scores of their answers, a − b; only the items
-- where they differ, most different first (an unparsed or failed score first of all), at most $4 rows, `total`
-- counting them all. Parameters: judge, model a, model b, rows, category (NULL: every one).
WITH v AS (
    SELECT model, item_id, avg(score) AS value, NULL AS outcomes
    FROM gap_score_judgments
    WHERE judge = $1 AND model IN ($2, $3)
    GROUP BY model, item_id
)
SELECT i.item_id, i.category, i.question AS prompt, NULL AS model, NULL AS turn,
       a.value AS value_a, a.outcomes AS outcomes_a, b.value AS value_b, b.outcomes AS outcomes_b,
       a.value - b.value AS difference, abs(a.value - b.value) AS disagreement, count(*) OVER () AS total
FROM gap_vqa_items i
JOIN v a ON a.item_id = i.item_id AND a.model = $2
JOIN v b ON b.item_id = i.item_id AND b.model = $3
WHERE a.value IS DISTINCT FROM b.value AND ($5 IS NULL OR i.category = $5)
ORDER BY disagreement DESC NULLS FIRST, i.item_id
LIMIT $4;
