-- MMMT-IF chats with how many responses and instruction checks each has, for the item list (counted in the tables
-- behind the mmmt_if_responses view, grouped once rather than asked per chat).
WITH responses AS (SELECT chat_id, count(*) AS answers FROM mmmt_if_turn_scores GROUP BY chat_id),
     checks AS (SELECT chat_id, count(*) AS judgments FROM mmmt_if_instruction_results GROUP BY chat_id)
SELECT c.chat_id AS item_id, c.topic AS category, c.topic AS instruction, len(c.image_hashes) AS images, c.n_turns,
       coalesce(r.answers, 0) AS answers, coalesce(k.judgments, 0) AS judgments
FROM mmmt_if_chats c
LEFT JOIN responses r ON r.chat_id = c.chat_id
LEFT JOIN checks k ON k.chat_id = c.chat_id
ORDER BY c.chat_id;
