-- URS: mean final score per judge × model × intent × language ('all' rows are in urs_leaderboard).
CREATE OR REPLACE VIEW urs_leaderboard_by_intent_language AS
SELECT judge_display AS judge_name, model_display AS model_name, intent, language, final_score, n, parse_failures,
       model_simulated, judge_simulated, simulated, l.judge, l.model, coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM urs_leaderboard l
LEFT JOIN answer_injection_flags f ON f.benchmark = 'urs' AND f.model = l.model
WHERE intent <> 'all' AND language <> 'all'
ORDER BY judge, intent, language, final_score DESC NULLS LAST;
