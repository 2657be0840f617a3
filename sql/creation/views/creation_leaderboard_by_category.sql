-- Reward, Win Rate and VFS per category, one row per judge × model × category.
CREATE OR REPLACE VIEW creation_leaderboard_by_category AS
SELECT judge_display AS judge_name, model_display AS model_name, scope_value AS category,
       vfs, reward, win_rate, n, fail, model_simulated, judge_simulated, simulated, l.judge, l.model,
       coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM creation_leaderboard l
LEFT JOIN answer_injection_flags f ON f.benchmark = 'creation' AND f.model = l.model
WHERE scope = 'category'
ORDER BY judge, category, reward DESC NULLS LAST;
