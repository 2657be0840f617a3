-- Reward, Win Rate and VFS per category, one row per judge × model × category.
CREATE OR REPLACE VIEW creation_leaderboard_by_category AS
SELECT judge_display AS judge, model_display AS model, scope_value AS category,
       vfs, reward, win_rate, n, fail, simulated
FROM creation_leaderboard
WHERE scope = 'category'
ORDER BY judge, category, reward DESC NULLS LAST;
