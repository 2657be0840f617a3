-- The main job's printout: each judge's position-swap consistency, parse rate and biases, and how many of the
-- integrity canaries' figures beat it (canaries_beaten of canary_figures; docs/CANARIES.md).
SELECT judge, pairs, round(exact_consistency, 3) AS exact_consistency,
       round(relaxed_consistency, 3) AS relaxed_consistency, round(parse_rate, 3) AS parse_rate,
       round(p_prefer_first, 3) AS p_prefer_first, round(p_prefer_longer, 3) AS p_prefer_longer,
       canaries_beaten, canary_figures
FROM judge_report;
