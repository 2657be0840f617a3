-- Two judges on the same URS answers: per item and candidate, each judge's mean final score, a − b; only where
-- they differ, most different first, at most $4 rows, `total` counting them all.
-- Parameters: model (NULL: every candidate), judge a, judge b, rows, intent and language (NULL: every one).
WITH v AS (
    SELECT judge, model, item_id, avg(final_score) AS value, string_agg(CAST(final_score AS VARCHAR), ' ') AS outcomes
    FROM urs_judgments
    WHERE judge IN ($2, $3) AND ($1 IS NULL OR model = $1) AND source = 'benchwright'
    GROUP BY judge, model, item_id
)
SELECT i.item_id, i.intent AS category, i.question AS prompt, a.model, NULL AS turn,
       a.value AS value_a, a.outcomes AS outcomes_a, b.value AS value_b, b.outcomes AS outcomes_b,
       a.value - b.value AS difference, abs(a.value - b.value) AS disagreement, count(*) OVER () AS total
FROM v a
JOIN v b ON b.item_id = a.item_id AND b.model = a.model AND b.judge = $3
JOIN urs_items i ON i.item_id = a.item_id
WHERE a.judge = $2 AND a.value IS DISTINCT FROM b.value AND ($5 IS NULL OR i.intent = $5) AND ($6 IS NULL OR i.language = $6)
ORDER BY disagreement DESC NULLS FIRST, i.item_id, a.model
LIMIT $4;
