-- URS: one row per judge and model, best mean final score (1-10; the reference answer is worth 8) first.
CREATE OR REPLACE VIEW urs_leaderboard_overall AS
SELECT judge_display AS judge, model_display AS model, final_score, n, parse_failures, simulated,
       judge AS judge_slug, model AS model_slug
FROM urs_leaderboard
WHERE intent = 'all' AND language = 'all'
ORDER BY judge, final_score DESC NULLS LAST;
