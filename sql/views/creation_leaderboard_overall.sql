-- One row per judge and model, best Reward first. Simulated rows are flagged.
CREATE OR REPLACE VIEW creation_leaderboard_overall AS
SELECT judge_display AS judge_name, model_display AS model_name, vfs, reward, win_rate,
       mb, better, tie, worse, mw, fail, n, simulated, l.judge, l.model,
       coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM creation_leaderboard l
LEFT JOIN answer_injection_flags f ON f.benchmark = 'creation' AND f.model = l.model
WHERE scope = 'overall'
ORDER BY judge, reward DESC NULLS LAST;
