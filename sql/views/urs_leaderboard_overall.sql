-- URS: one row per judge and model, best mean final score (1-10; the reference answer is worth 8) first.
CREATE OR REPLACE VIEW urs_leaderboard_overall AS
SELECT judge_display AS judge_name, model_display AS model_name, final_score, n, parse_failures, simulated,
       l.judge, l.model, coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM urs_leaderboard l
LEFT JOIN answer_injection_flags f ON f.benchmark = 'urs' AND f.model = l.model
WHERE intent = 'all' AND language = 'all'
ORDER BY judge, final_score DESC NULLS LAST;
