-- One GAP-VQA item: its picture, question and reference answer (not the game's picture id or set).
SELECT item_id, sha256, question, answer, category, split FROM gap_vqa_items WHERE item_id = ?;
