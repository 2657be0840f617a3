-- Analyst server only (web/app.py: never on the game's server): where one GAP-VQA item came from in the game —
-- its picture's id and set, and each time a player's Wrong mark on this question was kept (their reliability then).
SELECT i.image_id, g.image_set, a.player_id, a.session_id, a.question_index, a.model_answer, a.reliability, a.theta
FROM gap_vqa_items i
LEFT JOIN gap_images g ON g.image_id = i.image_id
LEFT JOIN gap_adversarial_questions a ON a.image_id = i.image_id AND a.question = i.question
WHERE i.item_id = ?
ORDER BY a.session_id, a.question_index;
