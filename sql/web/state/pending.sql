-- The question of an image waiting for the player's mark. Parameters: session_id, image_order.
SELECT * FROM pending_questions
WHERE session_id = ? AND image_order = ?;
