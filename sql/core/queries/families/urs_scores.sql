-- Each judge's URS final score (1-10 against the reference) of each candidate per question, parsed rows only.
SELECT judge, model, item_id, final_score AS score
FROM urs_judgments
WHERE source = 'benchwright' AND parse_ok AND error IS NULL AND final_score IS NOT NULL
  AND list_contains(?, judge) AND list_contains(?, model)
