-- URS cross-validation grid: each candidate's mean score and rank per (evaluator, reference model).
-- Reference = the reference model's second sample; on the diagonal a model is judged against itself.
CREATE OR REPLACE VIEW urs_cross_validation_grid AS
SELECT judge_display AS judge_name, reference_model_display AS reference_model_name, model_display AS model_name,
       mean_score, rank, n, parse_failures, model = reference_model AS own_reference, simulated,
       judge, reference_model, model
FROM urs_cross_validation
ORDER BY judge, reference_model, rank NULLS LAST;
