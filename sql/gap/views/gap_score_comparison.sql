-- GAP-VQA: GPT score of every pair of models per judge (e.g. before / after fine-tuning), difference a − b
-- (as compare_models and compare_judges: a minus b).
-- model_a, model_b: the two models' registry slugs (each pair once, model_a < model_b).
-- score_a, score_b: each model's GPT score under this judge (gap_scores.gpt_score).
-- difference: score_a − score_b.
-- n_a, n_b: parsed answers behind each score.
-- flagged_injection_a, flagged_injection_b: that model wrote judge-format strings into its GAP answers (answer_injection_flags).
CREATE OR REPLACE VIEW gap_score_comparison AS
SELECT a.judge, a.model AS model_a, b.model AS model_b, a.gpt_score AS score_a, b.gpt_score AS score_b,
       a.gpt_score - b.gpt_score AS difference, a.n AS n_a, b.n AS n_b,
       coalesce(fa.flagged_injection, FALSE) AS flagged_injection_a,
       coalesce(fb.flagged_injection, FALSE) AS flagged_injection_b
FROM gap_scores a JOIN gap_scores b ON a.judge = b.judge AND a.model < b.model
LEFT JOIN answer_injection_flags fa ON fa.benchmark = 'gap' AND fa.model = a.model
LEFT JOIN answer_injection_flags fb ON fb.benchmark = 'gap' AND fb.model = b.model
ORDER BY a.judge, model_a, model_b;
