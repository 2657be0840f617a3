-- One row per judge and model, best Reward first. Simulated rows are flagged. `missing`: items left out of the
-- figures because a call failed (the model's answer, or this judge's pairwise or VFS verdict); they are asked
-- again by the next run, so a row with missing > 0 is partial.
CREATE OR REPLACE VIEW creation_leaderboard_overall AS
WITH failed AS (
    SELECT g.model, j.judge, g.item_id FROM generations g
    JOIN (SELECT DISTINCT model, judge FROM creation_leaderboard) j ON j.model = g.model
    WHERE g.benchmark = 'creation' AND g.error IS NOT NULL
    UNION SELECT model, judge, item_id FROM creation_pairwise_judgments WHERE error IS NOT NULL
    UNION SELECT model, judge, item_id FROM creation_vfs_judgments WHERE error IS NOT NULL
), missing AS (SELECT model, judge, count(DISTINCT item_id) AS missing FROM failed GROUP BY model, judge)
SELECT judge_display AS judge_name, model_display AS model_name, vfs, reward, win_rate,
       mb, better, tie, worse, mw, fail, n, coalesce(m.missing, 0) AS missing,
       model_simulated, judge_simulated, simulated, l.judge, l.model,
       coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM creation_leaderboard l
LEFT JOIN answer_injection_flags f ON f.benchmark = 'creation' AND f.model = l.model
LEFT JOIN missing m ON m.model = l.model AND m.judge = l.judge
WHERE scope = 'overall'
ORDER BY l.judge, reward DESC NULLS LAST;
