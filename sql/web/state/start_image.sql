-- When an image was first shown: a reload (or a second request racing the first) keeps the first time.
-- Parameters: session_id, image_order, started_at.
INSERT OR IGNORE INTO image_starts (session_id, image_order, started_at)
VALUES (?, ?, ?);
