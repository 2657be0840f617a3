-- URS: one row per judge and model, best mean final score (1-10; the reference answer is worth 8) first.
-- `missing`: items left out because a call failed (the model's answer or this judge's verdict); asked again by
-- the next run, so a row with missing > 0 is partial.
CREATE OR REPLACE VIEW urs_leaderboard_overall AS
WITH failed AS (
    SELECT g.model, j.judge, g.item_id FROM generations g
    JOIN (SELECT DISTINCT model, judge FROM urs_leaderboard) j ON j.model = g.model
    WHERE g.benchmark = 'urs' AND g.error IS NOT NULL
    UNION SELECT model, judge, item_id FROM urs_judgments WHERE error IS NOT NULL
), missing AS (SELECT model, judge, count(DISTINCT item_id) AS missing FROM failed GROUP BY model, judge)
SELECT judge_display AS judge_name, model_display AS model_name, final_score, n, coalesce(m.missing, 0) AS missing,
       parse_failures, model_simulated, judge_simulated, simulated, l.judge, l.model, coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM urs_leaderboard l
LEFT JOIN answer_injection_flags f ON f.benchmark = 'urs' AND f.model = l.model
LEFT JOIN missing m ON m.model = l.model AND m.judge = l.judge
WHERE intent = 'all' AND language = 'all'
ORDER BY l.judge, final_score DESC NULLS LAST;
