-- How far each judge can be trusted (benchwright/creation/README.md#position-consistency; docs/ARCHITECTURE.md#checks), computed where the
-- judgments live. Same results as benchwright.creation.metrics.judge_quality (the reference): failed
-- calls (error) are left out; each share is NULL when its denominator is 0.
WITH judged AS (
    SELECT rowid AS row_number, judge, model, item_id, judge_order, candidate_position, verdict, parse_ok,
           candidate_len, baseline_len
    FROM creation_pairwise_judgments
    WHERE error IS NULL
),
-- Pairs whose two orders both parsed (of duplicates, the first stored judgment counts), each verdict read
-- as the candidate's outcome value (MW -2 .. MB 2): the candidate is B in order 1 and A in order 2.
pairs AS (
    SELECT judge,
           CASE order1 WHEN 'B>>A' THEN 2 WHEN 'B>A' THEN 1 WHEN 'A=B' THEN 0 WHEN 'A>B' THEN -1 WHEN 'A>>B' THEN -2
                ELSE error('not a canonical verdict: ' || order1) END AS value1,
           CASE order2 WHEN 'A>>B' THEN 2 WHEN 'A>B' THEN 1 WHEN 'A=B' THEN 0 WHEN 'B>A' THEN -1 WHEN 'B>>A' THEN -2
                ELSE error('not a canonical verdict: ' || order2) END AS value2
    FROM (
        SELECT judge, arg_min(verdict, row_number) FILTER (WHERE judge_order = 1) AS order1,
               arg_min(verdict, row_number) FILTER (WHERE judge_order = 2) AS order2
        FROM judged
        WHERE parse_ok
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
-- Every judgment: parsed or not; for a parsed non-tie verdict (decided), which position won and which
-- position held the longer answer (NULL when a length is missing or both are equal).
per_judgment AS (
    SELECT judge, parse_ok, decided, left(verdict, 1) AS winner,
           CASE WHEN length_a IS NOT NULL AND length_b IS NOT NULL AND length_a <> length_b
                THEN CASE WHEN length_a > length_b THEN 'A' ELSE 'B' END END AS longer
    FROM (
        SELECT judge, verdict, parse_ok, parse_ok AND verdict IN ('A>>B', 'A>B', 'B>A', 'B>>A') AS decided,
               CASE WHEN candidate_position = 'A' THEN candidate_len ELSE baseline_len END AS length_a,
               CASE WHEN candidate_position = 'A' THEN baseline_len ELSE candidate_len END AS length_b
        FROM judged
    )
),
per_judge AS (
    SELECT judge, count(*) AS judgments, count_if(parse_ok) AS parsed, count_if(decided) AS decided,
           count_if(decided AND winner = 'A') AS first, count_if(decided AND longer IS NOT NULL) AS comparable,
           count_if(decided AND winner = longer) AS longer
    FROM per_judgment
    GROUP BY judge
)
SELECT judge,
       coalesce(c.pairs, 0)::BIGINT AS pairs,
       (c.exact / nullif(c.pairs, 0))::DOUBLE AS exact_consistency,
       (c.relaxed / nullif(c.pairs, 0))::DOUBLE AS relaxed_consistency,
       (j.parsed / j.judgments)::DOUBLE AS parse_rate,
       (j.first / nullif(j.decided, 0))::DOUBLE AS p_prefer_first,
       (j.longer / nullif(j.comparable, 0))::DOUBLE AS p_prefer_longer
FROM per_judge j
LEFT JOIN consistency c USING (judge)
ORDER BY judge
