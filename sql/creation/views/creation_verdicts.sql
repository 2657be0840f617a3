-- Every pairwise judgment with its item's category and task, both orders side by side.
-- item_id: the Creation item.
-- task: the item's task.
-- verdict_baseline_first: the canonical verdict of order 1 (baseline is A).
-- verdict_candidate_first: the verdict of order 2 (candidate is A).
-- outcome_order_1, outcome_order_2: the candidate's outcome (MB B T W MW Fail) in each order.
-- category: the item's category.
CREATE OR REPLACE VIEW creation_verdicts AS
SELECT j.judge, j.model, j.item_id, i.category, i.task,
       max(CASE WHEN j.judge_order = 1 THEN j.verdict END) AS verdict_baseline_first,
       max(CASE WHEN j.judge_order = 2 THEN j.verdict END) AS verdict_candidate_first,
       max(CASE WHEN j.judge_order = 1 THEN j.outcome END) AS outcome_order_1,
       max(CASE WHEN j.judge_order = 2 THEN j.outcome END) AS outcome_order_2
FROM creation_pairwise_judgments j
JOIN creation_items i USING (item_id)
GROUP BY ALL;
