-- `dev.py show gap [--judge J]`: each judge's 0-1 score of each model's GAP-VQA answers on val. The view has no
-- intervals. $judge NULL: every judge.
SELECT judge, model, round(gpt_score, 3) AS gpt_score, n, missing, parse_failures, simulated, flagged_injection
FROM gap_leaderboard
WHERE $judge IS NULL OR judge = $judge;
