-- How close each Creation judge comes to people (benchwright/creation/README.md#human-alignment), per model: MAE and Consistency of the
-- judge's −2..+2 value against the mean human value per item, dual and non-dual, next to the
-- human–human (leave-one-out) figures for the same model. Lower MAE and higher Consistency = closer.
-- consistency_pct: share of items with |J − P| ≤ 1, in percent.
-- human_human_mae: the same MAE for people against the other people (leave-one-out).
-- human_human_consistency_pct: the same for people against the other people (leave-one-out), in percent.
-- mode: 'dual' (the judge's value is the mean of both orders) or 'non_dual' (order 1).
CREATE OR REPLACE VIEW creation_human_alignment_by_judge AS
SELECT a.model_display AS model_name, a.judge_display AS judge_name, a.mode, a.items, a.human_choices,
       a.judge_failures, a.judge_errors, round(a.mae, 3) AS mae, round(100 * a.consistency, 1) AS consistency_pct,
       round(h.mae, 3) AS human_human_mae, round(100 * h.consistency, 1) AS human_human_consistency_pct,
       a.model_simulated, a.judge_simulated, a.simulated, a.judge, a.model
FROM creation_human_alignment a
LEFT JOIN creation_human_alignment h ON h.model = a.model AND h.mode = 'human_human'
WHERE a.mode <> 'human_human'
ORDER BY model, mode, mae NULLS LAST;
