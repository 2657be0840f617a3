-- People's choices on one Creation item (annotation page and dropped files), without who made them.
SELECT model_a, model_b, winner, strength, left_model, recorded_at
FROM creation_human_pairwise WHERE item_id = ?
ORDER BY model_b, recorded_at;
