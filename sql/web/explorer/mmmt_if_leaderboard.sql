-- MMMT-IF: PIF per model and variant with its interval (no judge: the instructions are checked by code).
SELECT variant, model, model_name, pif, pif_lower, pif_upper, pif_n_n, n_samples, contexts, failed,
       simulated, flagged_injection
FROM mmmt_if_leaderboard
ORDER BY variant DESC, pif DESC NULLS LAST, model;
