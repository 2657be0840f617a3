-- The GAP-VQA items, which are also what the export folder holds (questions from the game, answers).
SELECT 'gap_vqa_items/' || item_id AS location, question, answer FROM gap_vqa_items
