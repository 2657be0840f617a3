-- The answer was marked: nothing waits for this image any more. Parameters: session_id, image_order.
DELETE FROM pending_questions
WHERE session_id = ? AND image_order = ?;
