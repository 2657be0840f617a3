-- `dev.py show urs [--judge J]`: mean final score (1-10; the reference answer is worth 8) per judge and model,
-- overall. The view has no intervals. $judge NULL: every judge.
SELECT judge, model, round(final_score, 2) AS final_score, n, missing, parse_failures, simulated, flagged_injection
FROM urs_leaderboard_overall
WHERE $judge IS NULL OR judge = $judge;
