-- The first ? GAP-VQA validation items (by item id): what candidates answer and judges score.
SELECT item_id, question, answer, sha256
FROM gap_vqa_items
WHERE split = 'val'
ORDER BY item_id
LIMIT ?;
