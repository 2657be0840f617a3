-- Creation leaderboard rows, overall and per category (category 'all' = overall), for the explorer's filters.
SELECT 'all' AS category, judge, judge_name, model, model_name, reward, win_rate, vfs, n, missing, fail,
       simulated, flagged_injection
FROM creation_leaderboard_overall
UNION ALL
SELECT category, judge, judge_name, model, model_name, reward, win_rate, vfs, n, NULL AS missing, fail,
       simulated, flagged_injection
FROM creation_leaderboard_by_category
ORDER BY judge, category, reward DESC NULLS LAST, model;
