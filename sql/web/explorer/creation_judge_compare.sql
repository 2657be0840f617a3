-- Two judges on the same Creation candidates: per item and candidate, each judge's mean verdict value against the
-- baseline (MB +2 .. MW -2, both orders; parse failures and failed calls left out), a − b; only the pairs both
-- judged where they differ, most different first, at most $4 rows, `total` counting them all. One pass over the
-- two judges' rows, grouped per item and candidate, each order's verdict picked by a filter (a self-join of the
-- groups, or string_agg(... ORDER BY judge_order), took several times as long at 100 models; a judge, candidate,
-- item and order have one row).
-- Parameters: model (NULL: every candidate), judge a, judge b, rows, category (NULL: every one).
WITH v AS (
    SELECT model, item_id,
           avg(value) FILTER (WHERE judge = $2) AS value_a, avg(value) FILTER (WHERE judge = $3) AS value_b,
           concat_ws(' ', max(outcome) FILTER (WHERE judge = $2 AND judge_order = 1),
                     max(outcome) FILTER (WHERE judge = $2 AND judge_order = 2)) AS outcomes_a,
           concat_ws(' ', max(outcome) FILTER (WHERE judge = $3 AND judge_order = 1),
                     max(outcome) FILTER (WHERE judge = $3 AND judge_order = 2)) AS outcomes_b,
           count(*) FILTER (WHERE judge = $2) AS n_a, count(*) FILTER (WHERE judge = $3) AS n_b
    FROM (SELECT judge, model, item_id, judge_order, outcome,
                 CASE outcome WHEN 'MB' THEN 2 WHEN 'B' THEN 1 WHEN 'T' THEN 0 WHEN 'W' THEN -1 WHEN 'MW' THEN -2 END AS value
          FROM creation_pairwise_judgments
          WHERE judge IN ($2, $3) AND ($1 IS NULL OR model = $1) AND source = 'benchwright')
    GROUP BY model, item_id
)
SELECT i.item_id, i.category, i.instruction AS prompt, v.model, NULL AS turn,
       v.value_a, v.outcomes_a, v.value_b, v.outcomes_b,
       v.value_a - v.value_b AS difference, abs(v.value_a - v.value_b) AS disagreement, count(*) OVER () AS total
FROM v
JOIN creation_items i ON i.item_id = v.item_id
WHERE v.n_a > 0 AND v.n_b > 0 AND v.value_a IS DISTINCT FROM v.value_b AND ($5 IS NULL OR i.category = $5)
ORDER BY disagreement DESC NULLS FIRST, i.item_id, v.model
LIMIT $4;
