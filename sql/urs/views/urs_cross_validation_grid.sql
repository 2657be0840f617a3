-- URS cross-validation grid: each candidate's mean score and rank per (evaluator, reference model).
-- Reference = the reference model's second sample; on the diagonal a model is judged against itself.
-- simulated also counts the reference model (model_simulated OR judge_simulated OR the reference's).
-- flagged_injection: the candidate wrote judge-format strings into its URS answers (answer_injection_flags).
-- reference_model_name: the display name of the model whose second sample is the reference.
-- mean_score: the candidate's mean score against that reference.
-- own_reference: the candidate is judged against its own second sample (the diagonal).
CREATE OR REPLACE VIEW urs_cross_validation_grid AS
SELECT g.judge_display AS judge_name, g.reference_model_display AS reference_model_name, g.model_display AS model_name,
       g.mean_score, g.rank, g.n, g.parse_failures, g.model = g.reference_model AS own_reference,
       g.model_simulated, g.judge_simulated, g.simulated,
       g.judge, g.reference_model, g.model, coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM urs_cross_validation g
LEFT JOIN answer_injection_flags f ON f.benchmark = 'urs' AND f.model = g.model
ORDER BY g.judge, g.reference_model, g.rank NULLS LAST;
