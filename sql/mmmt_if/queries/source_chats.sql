-- Every MMMT-IF source chat, in chat order.
SELECT * FROM mmmt_if_source_chats ORDER BY chat_id;
