-- The first ? tainted game pictures that have true answers (by picture id): the ones the game model answers
-- about, some of them with a planted wrong answer.
SELECT image_id, sha256, truth
FROM gap_images
WHERE image_set = 'tainted' AND truth <> '[]'
ORDER BY image_id
LIMIT ?;
