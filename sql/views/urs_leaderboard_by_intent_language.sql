-- URS: mean final score per judge × model × intent × language ('all' rows are in urs_leaderboard).
CREATE OR REPLACE VIEW urs_leaderboard_by_intent_language AS
SELECT judge_display AS judge, model_display AS model, intent, language, final_score, n, parse_failures,
       simulated, judge AS judge_slug, model AS model_slug
FROM urs_leaderboard
WHERE intent <> 'all' AND language <> 'all'
ORDER BY judge, intent, language, final_score DESC NULLS LAST;
