-- Two judges on the same URS answers: per item and candidate, each judge's mean final score, a − b; only the pairs
-- both judged where they differ, most different first, at most $4 rows, `total` counting them all. One pass over
-- the two judges' rows (creation_judge_compare.sql says why).
-- Parameters: model (NULL: every candidate), judge a, judge b, rows, intent and language (NULL: every one).
WITH v AS (
    SELECT model, item_id,
           avg(final_score) FILTER (WHERE judge = $2) AS value_a, avg(final_score) FILTER (WHERE judge = $3) AS value_b,
           string_agg(CAST(final_score AS VARCHAR), ' ') FILTER (WHERE judge = $2) AS outcomes_a,
           string_agg(CAST(final_score AS VARCHAR), ' ') FILTER (WHERE judge = $3) AS outcomes_b,
           count(*) FILTER (WHERE judge = $2) AS n_a, count(*) FILTER (WHERE judge = $3) AS n_b
    FROM urs_judgments
    WHERE judge IN ($2, $3) AND ($1 IS NULL OR model = $1) AND source = 'benchwright'
    GROUP BY model, item_id
)
SELECT i.item_id, i.intent AS category, i.question AS prompt, v.model, NULL AS turn,
       v.value_a, v.outcomes_a, v.value_b, v.outcomes_b,
       v.value_a - v.value_b AS difference, abs(v.value_a - v.value_b) AS disagreement, count(*) OVER () AS total
FROM v
JOIN urs_items i ON i.item_id = v.item_id
WHERE v.n_a > 0 AND v.n_b > 0 AND v.value_a IS DISTINCT FROM v.value_b
  AND ($5 IS NULL OR i.intent = $5) AND ($6 IS NULL OR i.language = $6)
ORDER BY disagreement DESC NULLS FIRST, i.item_id, v.model
LIMIT $4;
