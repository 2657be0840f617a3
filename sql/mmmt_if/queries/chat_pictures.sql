-- Each chat's pictures (content hashes), in chat order.
SELECT chat_id, image_hashes FROM mmmt_if_chats ORDER BY chat_id;
