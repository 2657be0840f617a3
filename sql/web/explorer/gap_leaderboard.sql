-- GAP-VQA: the GPT score per judge and model.
SELECT judge, judge_name, model, model_name, gpt_score, n, missing, parse_failures, simulated, flagged_injection
FROM gap_leaderboard
ORDER BY judge, gpt_score DESC NULLS LAST, model;
