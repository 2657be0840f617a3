-- Each model's GAP answers once (every judge sees the same answer), with the judge formats found in them.
SELECT DISTINCT model, item_id AS key, answer, answer_injection_kinds AS injection_kinds
FROM gap_score_judgments
WHERE answer IS NOT NULL
ORDER BY model, key
