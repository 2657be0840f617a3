-- Two judges on the same Creation candidates: per item and candidate, each judge's mean verdict value against the
-- baseline (MB +2 .. MW -2, both orders; parse failures and failed calls left out), a − b; only where they differ,
-- most different first, at most $4 rows, `total` counting them all.
-- Parameters: model (NULL: every candidate), judge a, judge b, rows, category (NULL: every one).
WITH v AS (
    SELECT judge, model, item_id, avg(CASE outcome WHEN 'MB' THEN 2 WHEN 'B' THEN 1 WHEN 'T' THEN 0 WHEN 'W' THEN -1
                                                   WHEN 'MW' THEN -2 END) AS value,
           string_agg(outcome, ' ' ORDER BY judge_order) AS outcomes
    FROM creation_pairwise_judgments
    WHERE judge IN ($2, $3) AND ($1 IS NULL OR model = $1) AND source = 'benchwright'
    GROUP BY judge, model, item_id
)
SELECT i.item_id, i.category, i.instruction AS prompt, a.model, NULL AS turn,
       a.value AS value_a, a.outcomes AS outcomes_a, b.value AS value_b, b.outcomes AS outcomes_b,
       a.value - b.value AS difference, abs(a.value - b.value) AS disagreement, count(*) OVER () AS total
FROM v a
JOIN v b ON b.item_id = a.item_id AND b.model = a.model AND b.judge = $3
JOIN creation_items i ON i.item_id = a.item_id
WHERE a.judge = $2 AND a.value IS DISTINCT FROM b.value AND ($5 IS NULL OR i.category = $5)
ORDER BY disagreement DESC NULLS FIRST, i.item_id, a.model
LIMIT $4;
