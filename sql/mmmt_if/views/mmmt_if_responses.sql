-- MMMT-IF: every response with its turn's question, the instructions in force and what it followed.
-- chat_id: the chat.
-- sample_index: which of the N samples.
-- followed: the instructions in force the response follows.
-- not_followed: those it does not.
-- question: the turn's question.
-- pif: the response's PIF (share of instructions in force it follows).
CREATE OR REPLACE VIEW mmmt_if_responses AS
SELECT s.model, s.variant, s.chat_id, s.turn, s.sample_index, t.question, t.instructions_in_force,
       s.pif, s.error,
       list(r.instruction_id ORDER BY r.instruction_id) FILTER (WHERE r.followed) AS followed,
       list(r.instruction_id ORDER BY r.instruction_id) FILTER (WHERE NOT r.followed) AS not_followed,
       g.response
FROM mmmt_if_turn_scores s
JOIN mmmt_if_turns t USING (turn_id)
LEFT JOIN mmmt_if_instruction_results r USING (model, variant, turn_id, sample_index)
LEFT JOIN generations g
  ON g.benchmark = 'mmmt_if' AND g.model = s.model AND g.item_id = s.turn_id
 AND g.variant = s.variant AND g.sample_index = s.sample_index
GROUP BY ALL;
