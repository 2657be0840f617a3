-- How well each judge agrees with people, per source and item group ('Overall' first). model_simulated is
-- NULL: a row covers every model the judge saw.
-- agreement_pct: share of items where the judge agrees with people, in percent.
-- agreement_without_ties_pct: the same over items people did not call a tie, in percent.
-- agreement_both_orders_pct: share where both orders of the judge agree with people, in percent.
-- swap_consistency_pct: share where the judge's two orders agree with each other, in percent.
-- kappa_order1: Cohen's kappa between the judge's order-1 verdicts and people.
-- consistency_dual: share of items where the judge's mean of both orders is within 1 of the people's mean value.
-- pearson_dual, spearman_dual: correlation of the judge's two-order value with the people's, Pearson and Spearman.
-- item_group: the source's grouping of items ('Overall' for all).
-- items: items in the group.
CREATE OR REPLACE VIEW interop_judge_agreement AS
SELECT source, judge_display AS judge_name, item_group, items, judge_failures,
       round(100 * agreement, 2) AS agreement_pct, round(100 * agreement_without_ties, 2) AS agreement_without_ties_pct,
       round(100 * agreement_both, 2) AS agreement_both_orders_pct, round(100 * swap_consistency, 2) AS swap_consistency_pct,
       kappa_order1, mae_dual, consistency_dual, pearson_dual, spearman_dual, human_human_mae,
       model_simulated, judge_simulated, simulated, judge
FROM interop_agreement
ORDER BY source, judge, item_group <> 'Overall', item_group;
