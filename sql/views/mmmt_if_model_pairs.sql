-- MMMT-IF: every model pair per variant — Wilcoxon p-values on paired per-turn PIF, the ECDF
-- dominance verdict, and each judge's autorater win/tie/loss record.
CREATE OR REPLACE VIEW mmmt_if_model_pairs AS
SELECT w.variant, w.model_a, w.model_b, w.pairs, w.mean_difference, w.p_a_greater, w.p_b_greater,
       d.verdict AS dominance, d.turns_a_dominates, d.turns_b_dominates,
       p.judge, p.wins, p.ties, p.losses, p.win_rate
FROM mmmt_if_wilcoxon w
LEFT JOIN mmmt_if_dominance d USING (variant, model_a, model_b)
LEFT JOIN mmmt_if_preferences p USING (variant, model_a, model_b)
ORDER BY w.variant, w.model_a, w.model_b, p.judge;
