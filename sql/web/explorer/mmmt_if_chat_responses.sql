-- Every model's answer at each turn of one chat (one variant, one sample), with the instructions it followed
-- and did not follow by the programmatic checkers. Parameters: chat, variant, sample.
SELECT turn, model, response, error, pif, followed, not_followed
FROM mmmt_if_responses
WHERE chat_id = ? AND variant = ? AND sample_index = ?
ORDER BY turn, model;
