-- URS scores (1-10 against the reference) of the models people compared: the judge's view of every question.
-- NULL final_score: an unparsed verdict or a failed call.
SELECT model, judge, item_id, final_score
FROM urs_judgments
WHERE model IN (SELECT model_a FROM urs_human_pairwise UNION SELECT model_b FROM urs_human_pairwise)
