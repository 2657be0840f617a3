-- The results `dev.py export` writes in the Every Eval Ever schema (benchwright/exports.py): one row per
-- benchmark × judge × model × metric, read from the snapshot's main leaderboards (those the benchmarks'
-- declared reports print), with its interval where the leaderboard has one. judge '' = no judge (MMMT-IF's
-- PIF is checked by code). min_score / max_score NULL = unbounded; ci_method: how the interval was made; n: the
-- items a score averages (NULL where the leaderboard does not say); parameter: the style control or variant.
SELECT 'urs' AS benchmark, 'urs_leaderboard_overall' AS leaderboard, judge, judge_name, model, model_name,
       'final_score' AS metric, 'Mean final score 1-10 over the items (the reference answer is worth 8)' AS description,
       final_score AS score, NULL::DOUBLE AS ci_lower, NULL::DOUBLE AS ci_upper, NULL::DOUBLE AS confidence_level,
       NULL::VARCHAR AS ci_method, n, NULL::INTEGER AS bootstrap_rounds, FALSE AS lower_is_better,
       1.0::DOUBLE AS min_score, 10.0::DOUBLE AS max_score, NULL::VARCHAR AS parameter, model_simulated,
       judge_simulated, simulated
FROM urs_leaderboard_overall
UNION ALL
SELECT 'creation', 'creation_leaderboard_overall', judge, judge_name, model, model_name, metric, description, score,
       NULL, NULL, NULL, NULL, n, NULL, FALSE, min_score, max_score, NULL, model_simulated, judge_simulated, simulated
FROM creation_leaderboard_overall, (VALUES
    ('reward', 'Reward (100·MB + 50·B − 50·W − 100·MW) / n against the baseline answer', -100.0, 100.0),
    ('win_rate', 'Share of items where the judge preferred the answer to the baseline', 0.0, 1.0),
    ('vfs', 'Visual Factuality Score: mean of the judge''s 0-10 scores', 0.0, 10.0)
) AS m(metric, description, min_score, max_score)
CROSS JOIN LATERAL (SELECT CASE m.metric WHEN 'reward' THEN reward WHEN 'win_rate' THEN win_rate ELSE vfs END AS score)
UNION ALL
SELECT 'creation', 'interop_leaderboard', judge, judge_name, model, model_name, 'bradley_terry_rating',
       'Bradley-Terry rating from the pairwise verdicts (anchor = 1000), style control: ' || control,
       rating, rating_lower, rating_upper, 0.95, 'bootstrap over prompts (2.5 % and 97.5 % quantiles)', judgments,
       bootstrap_rounds, FALSE, NULL, NULL, control, model_simulated, judge_simulated, simulated
FROM interop_leaderboard WHERE source = 'benchwright'
UNION ALL
SELECT 'gap', 'gap_leaderboard', judge, judge_name, model, model_name, 'gpt_score',
       'GAP-VQA GPT score: mean 0-1 judge score of the answers', gpt_score, NULL, NULL, NULL, NULL, n, NULL, FALSE,
       0.0, 1.0, NULL, model_simulated, judge_simulated, simulated
FROM gap_leaderboard
UNION ALL
SELECT 'mmmt_if', 'mmmt_if_leaderboard', '', NULL, model, model_name, 'pif',
       'Corpus PIF: share of the instructions in force that the answers follow, variant: ' || variant,
       pif, pif_lower, pif_upper, 0.95, 'normal approximation p ± 1.96·sqrt(p(1−p)/n), clipped to [0, 1]', NULL,
       NULL, FALSE, 0.0, 1.0, variant, model_simulated, judge_simulated, simulated
FROM mmmt_if_leaderboard
ORDER BY benchmark, judge, model, metric, parameter
