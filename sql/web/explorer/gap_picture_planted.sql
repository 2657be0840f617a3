-- Analyst server only: the pipeline's seeded questions on one tainted picture, the true answer and the game
-- model's answer when it was (or was not) told to be wrong: the planted answers a player has to catch.
SELECT question_index, question, true_answer, instructed_wrong AS planted, model, answer, error, matches_truth
FROM gap_tainted_answers WHERE image_id = ?
ORDER BY question_index, model;
