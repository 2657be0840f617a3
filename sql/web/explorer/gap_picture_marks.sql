-- Analyst server only: every player's mark on one game picture, in play order: the question, the game model's
-- answer, whether that answer was planted (the model told to be subtly wrong), the mark, the player's reliability
-- (the pipeline's latest) and whether the question was kept for GAP-VQA.
SELECT m.session_id, m.player_id, m.session_start, m.image_order, m.question_index, m.question, m.model_answer,
       m.instructed_wrong AS planted, m.player_mark, m.seconds_taken, m.tainted, r.reliability,
       k.question_index IS NOT NULL AS kept
FROM gap_marks m
LEFT JOIN gap_player_reliability r ON r.player_id = m.player_id
LEFT JOIN gap_adversarial_questions k
       ON k.session_id = m.session_id AND k.image_id = m.image_id AND k.question_index = m.question_index
WHERE m.image_id = ?
ORDER BY m.session_start, m.session_id, m.question_index;
