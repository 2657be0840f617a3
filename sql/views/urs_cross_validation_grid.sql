-- URS cross-validation grid: each candidate's mean score and rank per (evaluator, reference model).
-- Reference = the reference model's second sample; on the diagonal a model is judged against itself.
CREATE OR REPLACE VIEW urs_cross_validation_grid AS
SELECT judge_display AS evaluator, reference_model_display AS reference_model, model_display AS model,
       mean_score, rank, n, parse_failures, model = reference_model AS own_reference, simulated,
       judge AS judge_slug, reference_model AS reference_model_slug, model AS model_slug
FROM urs_cross_validation
ORDER BY evaluator, reference_model, rank NULLS LAST;
