-- The model's answer waiting for a mark; a newer question of the same image replaces the one before.
-- Parameters: session_id, image_order, question_index, question, answer, planted, asked_at.
INSERT OR REPLACE INTO pending_questions
VALUES (?, ?, ?, ?, ?, ?, ?);
