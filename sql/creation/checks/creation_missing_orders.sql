-- Items of one (model, judge) partition that lack one of the two orders of the dual evaluation.
SELECT item_id, list(judge_order ORDER BY judge_order) AS orders
FROM creation_pairwise_judgments
WHERE model = ? AND judge = ?
GROUP BY item_id
HAVING count(DISTINCT judge_order) <> 2
