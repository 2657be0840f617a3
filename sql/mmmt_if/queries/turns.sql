-- Every turn of the chat set, chat by chat in turn order (the order generations are asked in).
SELECT * FROM mmmt_if_turns ORDER BY chat_id, turn;
