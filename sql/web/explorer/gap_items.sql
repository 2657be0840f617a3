-- GAP-VQA items (questions people asked in the game, with their answers) that models were scored on, for the
-- item list. The game's picture ids and sets are left out: they would tell a player which pictures are tainted.
SELECT i.item_id, i.category, i.split, i.question AS instruction, 1 AS images,
       (SELECT count(DISTINCT j.model) FROM gap_score_judgments j WHERE j.item_id = i.item_id) AS answers,
       (SELECT count(*) FROM gap_score_judgments j WHERE j.item_id = i.item_id) AS judgments
FROM gap_vqa_items i
WHERE EXISTS (SELECT 1 FROM gap_score_judgments j WHERE j.item_id = i.item_id)
ORDER BY i.item_id;
