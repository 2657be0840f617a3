-- GAP-VQA: one row per judge and model, best GPT score (0-1, METHODS §4.5) first.
CREATE OR REPLACE VIEW gap_leaderboard AS
SELECT s.judge, s.model, s.gpt_score, s.n, s.parse_failures,
       coalesce(f.flagged_injection, FALSE) AS flagged_injection,
       s.judge_display AS judge_name, s.model_display AS model_name, s.simulated
FROM gap_scores s
LEFT JOIN answer_injection_flags f ON f.benchmark = 'gap' AND f.model = s.model
ORDER BY s.judge, s.gpt_score DESC NULLS LAST;
