-- URS leaderboard rows per judge x model x intent x language ('all' rows included), for the explorer's filters.
SELECT l.intent, l.language, l.judge, l.judge_display AS judge_name, l.model, l.model_display AS model_name,
       l.final_score, l.n, l.parse_failures, l.simulated, coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM urs_leaderboard l
LEFT JOIN answer_injection_flags f ON f.benchmark = 'urs' AND f.model = l.model
ORDER BY l.judge, l.intent, l.language, l.final_score DESC NULLS LAST, l.model;
