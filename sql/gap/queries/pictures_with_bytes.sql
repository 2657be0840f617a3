-- Every game picture with its true answers and its bytes (GAP-VQA items show the picture).
SELECT g.image_id, g.sha256, g.truth, i.data
FROM gap_images g JOIN images i USING (sha256);
