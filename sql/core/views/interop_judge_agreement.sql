-- How well each judge agrees with people, per source and item group ('Overall' first). model_simulated is
-- NULL: a row covers every model the judge saw.
CREATE OR REPLACE VIEW interop_judge_agreement AS
SELECT source, judge_display AS judge_name, item_group, items, judge_failures,
       round(100 * agreement, 2) AS agreement_pct, round(100 * agreement_without_ties, 2) AS agreement_without_ties_pct,
       round(100 * agreement_both, 2) AS agreement_both_orders_pct, round(100 * swap_consistency, 2) AS swap_consistency_pct,
       kappa_order1, mae_dual, consistency_dual, pearson_dual, spearman_dual, human_human_mae,
       model_simulated, judge_simulated, simulated, judge
FROM interop_agreement
ORDER BY source, judge, item_group <> 'Overall', item_group;
