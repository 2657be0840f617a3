-- MMMT-IF: one row per model and variant, best corpus PIF first. The instructions-appended ablation
-- is its own row next to the standard chat; PIF-N-N is PIF-4-4 with the default 4 samples.
-- judge_simulated is NULL: MMMT-IF has no judge (code checks the instructions, PIF), so simulated = model_simulated.
-- appended_uplift: the instructions-appended variant's gain over standard (mmmt_if_uplift).
CREATE OR REPLACE VIEW mmmt_if_leaderboard AS
SELECT s.model_display AS model_name, s.variant, s.pif, s.pif_lower, s.pif_upper, s.pif_n_n, s.n_samples,
       s.pif_iqr_n, s.contexts, s.failed, u.uplift AS appended_uplift,
       s.model_simulated, NULL::BOOLEAN AS judge_simulated, s.simulated, s.model,
       coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM mmmt_if_summary s
LEFT JOIN mmmt_if_uplift u USING (model)
LEFT JOIN answer_injection_flags f ON f.benchmark = 'mmmt_if' AND f.model = s.model
ORDER BY s.variant DESC, s.pif DESC NULLS LAST;
