-- People's choices on one URS item.
SELECT model_a, model_b, winner, strength, annotator, left_model
FROM urs_human_pairwise WHERE item_id = ?
ORDER BY model_a, model_b;
