-- Pictures whose GAP-VQA items fall in both train and val (a leak: none may).
SELECT image_id FROM gap_vqa_items GROUP BY image_id HAVING count(DISTINCT split) > 1;
