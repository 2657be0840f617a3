-- AlpacaEval annotations for the length-controlled win rate: each graded preference with the lengths
-- (characters) of the two outputs it compared, kept on the imported judgment row (judge_order 1).
SELECT p.source, p.judge, p.model, p.baseline, p.item_id, p.preference, j.baseline_len, j.candidate_len
FROM interop_preferences p
JOIN creation_pairwise_judgments j
  ON j.source = p.source AND j.judge = p.judge AND j.model = p.model AND j.item_id = p.item_id
 AND j.judge_order = 1
WHERE p.source LIKE 'alpaca_eval:%'
ORDER BY p.source, p.model, p.item_id
