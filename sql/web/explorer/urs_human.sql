-- People's choices on one URS item, without who made them.
SELECT model_a, model_b, winner, strength, left_model
FROM urs_human_pairwise WHERE item_id = ?
ORDER BY model_a, model_b;
