-- GAP-VQA items per question category and split.
-- images: distinct images of those items.
-- items: GAP-VQA items in that category and split.
CREATE OR REPLACE VIEW gap_vqa_categories AS
SELECT category, split, count(*) AS items, count(DISTINCT image_id) AS images
FROM gap_vqa_items
GROUP BY ALL
ORDER BY category, split;
