-- How far each judge can be trusted (position-swap consistency, parse rate, biases).
CREATE OR REPLACE VIEW judge_report AS
SELECT judge_display AS judge, pairs, exact_consistency, relaxed_consistency, parse_rate,
       p_prefer_first, p_prefer_longer, simulated, judge AS judge_slug
FROM judge_quality
ORDER BY exact_consistency DESC NULLS LAST;
