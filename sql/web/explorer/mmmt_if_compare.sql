-- Two candidates per MMMT-IF chat and turn (one variant): for each instruction in force, the share of samples in
-- which each followed it (the programmatic checkers' verdicts, mmmt_if_instruction_results: one row per response
-- and instruction in force; a failed call has none); value = the mean share (the turn's mean PIF), a − b, and
-- disagreement = the mean of |share a − share b| over the instructions (0 only when both followed each instruction
-- equally often); only the turns where they differ, most different first, at most $4 rows, `total` counting them
-- all. Parameters: variant, model a, model b, rows, topic (NULL: every one).
WITH per_instruction AS (
    SELECT model, chat_id, turn, instruction_id AS instruction, count(*) AS samples,
           count(*) FILTER (WHERE followed) AS times
    FROM mmmt_if_instruction_results
    WHERE variant = $1 AND model IN ($2, $3)
    GROUP BY model, chat_id, turn, instruction_id
),
pairs AS (
    SELECT a.chat_id, a.turn, a.instruction, a.times AS times_a, a.samples AS samples_a, b.times AS times_b,
           b.samples AS samples_b, a.times / a.samples AS share_a, b.times / b.samples AS share_b
    FROM per_instruction a
    JOIN per_instruction b ON b.chat_id = a.chat_id AND b.turn = a.turn AND b.instruction = a.instruction AND b.model = $3
    WHERE a.model = $2
)
SELECT c.chat_id AS item_id, c.topic AS category, t.user_text AS prompt, NULL AS model, p.turn,
       avg(p.share_a) AS value_a,
       string_agg(p.instruction || ' ' || p.times_a || '/' || p.samples_a, ', ' ORDER BY p.instruction) AS outcomes_a,
       avg(p.share_b) AS value_b,
       string_agg(p.instruction || ' ' || p.times_b || '/' || p.samples_b, ', ' ORDER BY p.instruction) AS outcomes_b,
       avg(p.share_a) - avg(p.share_b) AS difference, avg(abs(p.share_a - p.share_b)) AS disagreement,
       count(*) OVER () AS total
FROM pairs p
JOIN mmmt_if_chats c ON c.chat_id = p.chat_id
JOIN mmmt_if_turns t ON t.chat_id = p.chat_id AND t.turn = p.turn
WHERE ($5 IS NULL OR c.topic = $5)
GROUP BY c.chat_id, c.topic, t.user_text, p.turn
HAVING avg(abs(p.share_a - p.share_b)) > 0
ORDER BY disagreement DESC, item_id, p.turn
LIMIT $4;
