-- How much each of our leaderboards says beyond other benchmarks (README.md#redundancy-with-other-benchmarks): Spearman and R² across
-- the models scored on both; a high value means that leaderboard ranks models as the other one does.
-- other_benchmark: the benchmark whose scores (a benchmark_scores drop) this leaderboard is compared with.
-- n_models: models scored by both.
-- spearman_p: the p-value of the Spearman correlation.
CREATE OR REPLACE VIEW benchmark_redundancy_report AS
SELECT leaderboard, nullif(judge, '') AS judge, other_benchmark, n_models, round(spearman, 3) AS spearman,
       round(spearman_p, 4) AS spearman_p, round(r2, 3) AS r2, models
FROM benchmark_redundancy
ORDER BY leaderboard, judge, abs(spearman) DESC NULLS LAST, other_benchmark;
