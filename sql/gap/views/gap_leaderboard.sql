-- GAP-VQA: one row per judge and model, best GPT score (0-1, benchwright/gap/README.md#scoring) first. `missing`: items left out
-- because a call failed (the model's answer or this judge's score); asked again by the next run.
CREATE OR REPLACE VIEW gap_leaderboard AS
WITH missing AS (
    SELECT judge, model, count(DISTINCT item_id) AS missing FROM gap_score_judgments
    WHERE answer_error IS NOT NULL OR judge_error IS NOT NULL GROUP BY judge, model
)
SELECT s.judge, s.model, s.gpt_score, s.n, coalesce(m.missing, 0) AS missing, s.parse_failures,
       coalesce(f.flagged_injection, FALSE) AS flagged_injection,
       s.judge_display AS judge_name, s.model_display AS model_name,
       s.model_simulated, s.judge_simulated, s.simulated
FROM gap_scores s
LEFT JOIN answer_injection_flags f ON f.benchmark = 'gap' AND f.model = s.model
LEFT JOIN missing m ON m.judge = s.judge AND m.model = s.model
ORDER BY s.judge, s.gpt_score DESC NULLS LAST;
