-- The main job's printout: the MMMT-IF leaderboard (PIF with its 95 % bounds; PIF-N-N: all N samples follow every
-- instruction).
SELECT model, variant, round(pif, 3) AS pif, round(pif_lower, 3) AS pif_lower, round(pif_upper, 3) AS pif_upper,
       round(pif_n_n, 3) AS pif_n_n, n_samples, flagged_injection
FROM mmmt_if_leaderboard;
