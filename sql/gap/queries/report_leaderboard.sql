-- The main job's printout: GAP-VQA scores (each judge's 0-1 score of each model's answers on val).
SELECT judge, model, round(gpt_score, 3) AS gpt_score, n, parse_failures, simulated, flagged_injection
FROM gap_leaderboard;
