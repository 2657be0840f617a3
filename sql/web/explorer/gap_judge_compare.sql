-- Two judges on the same GAP-VQA answers: per item and candidate, each judge's 0-1 score, a − b; only where they
-- differ, most different first (an unparsed or failed score first of all), at most $4 rows, `total` counting them
-- all. Parameters: model (NULL: every candidate), judge a, judge b, rows, category (NULL: every one).
WITH v AS (
    SELECT judge, model, item_id, avg(score) AS value, NULL AS outcomes
    FROM gap_score_judgments
    WHERE judge IN ($2, $3) AND ($1 IS NULL OR model = $1)
    GROUP BY judge, model, item_id
)
SELECT i.item_id, i.category, i.question AS prompt, a.model, NULL AS turn,
       a.value AS value_a, a.outcomes AS outcomes_a, b.value AS value_b, b.outcomes AS outcomes_b,
       a.value - b.value AS difference, abs(a.value - b.value) AS disagreement, count(*) OVER () AS total
FROM v a
JOIN v b ON b.item_id = a.item_id AND b.model = a.model AND b.judge = $3
JOIN gap_vqa_items i ON i.item_id = a.item_id
WHERE a.judge = $2 AND a.value IS DISTINCT FROM b.value AND ($5 IS NULL OR i.category = $5)
ORDER BY disagreement DESC NULLS FIRST, i.item_id, a.model
LIMIT $4;
