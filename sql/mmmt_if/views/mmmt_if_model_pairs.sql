-- MMMT-IF: every model pair per variant — Wilcoxon p-values on paired per-turn PIF (wilcoxon_method: the test
-- scipy's method="auto" chooses for that pair's differences: exact, asymptotic or all sign flips), the ECDF
-- dominance verdict, and each judge's autorater win/tie/loss record.
-- flagged_injection_a, flagged_injection_b: that model wrote judge-format strings into its MMMT-IF answers.
-- mean_difference: mean of the paired context PIF differences, a − b.
-- p_b_greater: one-sided Wilcoxon p-value that b's PIF is greater.
-- turns_a_dominates, turns_b_dominates: turns where a's (b's) ECDF dominates.
-- wins, ties, losses: model a's autorater record against b under this judge.
-- model_a, model_b: the two models' registry slugs.
-- pairs: paired contexts the Wilcoxon test runs on.
-- dominance: the ECDF verdict: the model that dominates at every turn both answered, if one does.
CREATE OR REPLACE VIEW mmmt_if_model_pairs AS
SELECT w.variant, w.model_a, w.model_b, w.pairs, w.mean_difference, w.p_a_greater, w.p_b_greater,
       w.method AS wilcoxon_method,
       d.verdict AS dominance, d.turns_a_dominates, d.turns_b_dominates,
       p.judge, p.wins, p.ties, p.losses, p.win_rate,
       coalesce(fa.flagged_injection, FALSE) AS flagged_injection_a,
       coalesce(fb.flagged_injection, FALSE) AS flagged_injection_b
FROM mmmt_if_wilcoxon w
LEFT JOIN mmmt_if_dominance d USING (variant, model_a, model_b)
LEFT JOIN mmmt_if_preferences p USING (variant, model_a, model_b)
LEFT JOIN answer_injection_flags fa ON fa.benchmark = 'mmmt_if' AND fa.model = w.model_a
LEFT JOIN answer_injection_flags fb ON fb.benchmark = 'mmmt_if' AND fb.model = w.model_b
ORDER BY w.variant, w.model_a, w.model_b, p.judge;
