-- GAP-VQA: GPT score of every pair of models per judge (e.g. before / after fine-tuning), difference b − a.
CREATE OR REPLACE VIEW gap_score_comparison AS
SELECT a.judge, a.model AS model_a, b.model AS model_b, a.gpt_score AS score_a, b.gpt_score AS score_b,
       b.gpt_score - a.gpt_score AS difference, a.n AS n_a, b.n AS n_b
FROM gap_scores a JOIN gap_scores b ON a.judge = b.judge AND a.model < b.model
ORDER BY a.judge, model_a, model_b;
