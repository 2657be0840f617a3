-- People's choices on one Creation item (annotation page and dropped files).
SELECT model_a, model_b, winner, strength, annotator, left_model, recorded_at
FROM creation_human_pairwise WHERE item_id = ?
ORDER BY model_b, recorded_at;
