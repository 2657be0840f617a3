-- `dev.py show mmmt_if`: PIF with its 95 % bounds per model and variant (instructions are checked by code: no judge).
SELECT model, variant, round(pif, 3) AS pif, round(pif_lower, 3) AS pif_lower, round(pif_upper, 3) AS pif_upper,
       round(pif_n_n, 3) AS pif_n_n, n_samples, failed, simulated, flagged_injection
FROM mmmt_if_leaderboard;
