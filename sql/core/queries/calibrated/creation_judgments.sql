-- Our Creation verdicts (both orders) on the candidates people compared with the baseline: the judge's labels on
-- every item of those candidates. A failed call (error) or an unparsed verdict has no label.
SELECT model, judge, item_id, judge_order, candidate_position, verdict, parse_ok, error
FROM creation_pairwise_judgments
WHERE source = 'benchwright'
  AND model IN (SELECT DISTINCT model_b FROM creation_human_pairwise)
