-- How far each judge can be trusted (position-swap consistency, parse rate, biases).
CREATE OR REPLACE VIEW judge_report AS
SELECT judge_display AS judge_name, pairs, exact_consistency, relaxed_consistency, parse_rate,
       p_prefer_first, p_prefer_longer, simulated, judge
FROM judge_quality
ORDER BY exact_consistency DESC NULLS LAST;
