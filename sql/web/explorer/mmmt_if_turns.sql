-- The user's side of one MMMT-IF chat, turn by turn, with the instructions in force at each turn.
SELECT turn, user_text, inserted_instruction, instructions_in_force
FROM mmmt_if_turns WHERE chat_id = ?
ORDER BY turn;
