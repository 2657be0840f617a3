-- One row per judge and model, best Reward first. Simulated rows are flagged.
CREATE OR REPLACE VIEW creation_leaderboard_overall AS
SELECT judge_display AS judge, model_display AS model, vfs, reward, win_rate,
       mb, better, tie, worse, mw, fail, n, simulated, judge AS judge_slug, model AS model_slug
FROM creation_leaderboard
WHERE scope = 'overall'
ORDER BY judge, reward DESC NULLS LAST;
