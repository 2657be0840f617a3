-- Images the game can show: every GAP image with its set (tainted images need ground truth).
SELECT image_id, image_set, sha256
FROM gap_images
WHERE image_set = 'untainted' OR truth <> '[]'
ORDER BY image_id;
