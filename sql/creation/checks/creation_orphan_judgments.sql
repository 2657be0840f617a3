-- Judgments of one (model, judge) partition whose candidate answer does not exist: must be none.
SELECT j.item_id, j.judge_order
FROM creation_pairwise_judgments j
LEFT JOIN generations g
  ON g.benchmark = 'creation' AND g.model = j.model AND g.item_id = j.item_id AND g.response IS NOT NULL
WHERE j.model = ? AND j.judge = ? AND j.source = 'benchwright' AND g.item_id IS NULL
