-- One MMMT-IF chat: its pictures and size.
SELECT chat_id AS item_id, dataset, topic, n_turns, n_instructions, image_hashes, truncated
FROM mmmt_if_chats WHERE chat_id = ?;
