-- MMMT-IF chats with how many responses each has, for the item list.
SELECT c.chat_id AS item_id, c.topic AS category, c.topic AS instruction, len(c.image_hashes) AS images, c.n_turns,
       (SELECT count(*) FROM mmmt_if_responses r WHERE r.chat_id = c.chat_id) AS answers,
       (SELECT count(*) FROM mmmt_if_instruction_results r WHERE r.chat_id = c.chat_id) AS judgments
FROM mmmt_if_chats c
ORDER BY c.chat_id;
