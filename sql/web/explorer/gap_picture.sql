-- Analyst server only: one game picture, its set and what is really in it (the truth tainted answers are drawn
-- against), with the GAP-VQA items made from its questions.
SELECT g.image_id, g.image_set, g.sha256, g.truth,
       list(v.item_id ORDER BY v.item_id) FILTER (WHERE v.item_id IS NOT NULL) AS vqa_items
FROM gap_images g
LEFT JOIN gap_vqa_items v ON v.image_id = g.image_id
WHERE g.image_id = ?
GROUP BY ALL;
