-- How far each judge can be trusted (METHODS §1.3 position consistency, §5), computed where the
-- judgments live. Same results as benchwright.creation.metrics.judge_quality (the reference): failed
-- calls (error) are left out; each share is NULL when its denominator is 0.
WITH judged AS (
    SELECT rowid AS row_number, judge, model, item_id, judge_order, candidate_position, verdict, parse_ok,
           candidate_len, baseline_len
    FROM creation_pairwise_judgments
    WHERE error IS NULL
),
-- The parsed verdict of each (judge, model, item, order); of duplicates the first stored one counts.
order_verdicts AS (
    SELECT judge, model, item_id, judge_order, arg_min(verdict, row_number) AS verdict
    FROM judged
    WHERE parse_ok AND judge_order IN (1, 2)
    GROUP BY judge, model, item_id, judge_order
),
-- Pairs whose two orders both parsed, each verdict read as the candidate's outcome value (MW -2 .. MB 2):
-- the candidate is B in order 1 and A in order 2.
pairs AS (
    SELECT judge,
           CASE order1 WHEN 'B>>A' THEN 2 WHEN 'B>A' THEN 1 WHEN 'A=B' THEN 0 WHEN 'A>B' THEN -1 WHEN 'A>>B' THEN -2
                ELSE error('not a canonical verdict: ' || order1) END AS value1,
           CASE order2 WHEN 'A>>B' THEN 2 WHEN 'A>B' THEN 1 WHEN 'A=B' THEN 0 WHEN 'B>A' THEN -1 WHEN 'B>>A' THEN -2
                ELSE error('not a canonical verdict: ' || order2) END AS value2
    FROM (
        SELECT judge, max(verdict) FILTER (WHERE judge_order = 1) AS order1,
               max(verdict) FILTER (WHERE judge_order = 2) AS order2
        FROM order_verdicts
        GROUP BY judge, model, item_id
    )
    WHERE order1 IS NOT NULL AND order2 IS NOT NULL
),
consistency AS (
    -- exact: the second verdict mirrors the first; relaxed: the two outcomes are at most one step apart.
    SELECT judge, count(*) AS pairs, count_if(value1 = value2) AS exact, count_if(abs(value1 - value2) <= 1) AS relaxed
    FROM pairs
    GROUP BY judge
),
-- Non-tie parsed verdicts: which position won, and which position held the longer answer.
decided AS (
    SELECT judge, left(verdict, 1) AS winner,
           CASE WHEN length_a IS NOT NULL AND length_b IS NOT NULL AND length_a <> length_b
                THEN CASE WHEN length_a > length_b THEN 'A' ELSE 'B' END END AS longer
    FROM (
        SELECT judge, verdict,
               CASE WHEN candidate_position = 'A' THEN candidate_len ELSE baseline_len END AS length_a,
               CASE WHEN candidate_position = 'A' THEN baseline_len ELSE candidate_len END AS length_b
        FROM judged
        WHERE parse_ok AND verdict IN ('A>>B', 'A>B', 'B>A', 'B>>A')
    )
),
preferences AS (
    SELECT judge, count(*) AS decided, count_if(winner = 'A') AS first, count(longer) AS comparable,
           count_if(winner = longer) AS longer
    FROM decided
    GROUP BY judge
),
parsing AS (
    SELECT judge, count(*) AS judgments, count_if(parse_ok) AS parsed FROM judged GROUP BY judge
)
SELECT judge,
       coalesce(c.pairs, 0)::BIGINT AS pairs,
       (c.exact / nullif(c.pairs, 0))::DOUBLE AS exact_consistency,
       (c.relaxed / nullif(c.pairs, 0))::DOUBLE AS relaxed_consistency,
       (parsing.parsed / parsing.judgments)::DOUBLE AS parse_rate,
       (p.first / nullif(p.decided, 0))::DOUBLE AS p_prefer_first,
       (p.longer / nullif(p.comparable, 0))::DOUBLE AS p_prefer_longer
FROM parsing
LEFT JOIN consistency c USING (judge)
LEFT JOIN preferences p USING (judge)
ORDER BY judge
