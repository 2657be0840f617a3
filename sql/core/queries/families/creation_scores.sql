-- Each judge's win score of each candidate per item and order (Creation, against the baseline): win 1, tie 0.5,
-- loss 0, on parsed judgments only (a failed call or an unparsed verdict is no score). Panels' rows are left out
-- by the caller (their slug is not a judge's), as are canaries and other non-candidates.
SELECT judge, model, item_id,
       CASE WHEN outcome IN ('MB', 'B') THEN 1.0 WHEN outcome = 'T' THEN 0.5 ELSE 0.0 END AS score
FROM creation_pairwise_judgments
WHERE source = 'benchwright' AND parse_ok AND error IS NULL AND outcome IN ('MB', 'B', 'T', 'W', 'MW')
  AND list_contains(?, judge) AND list_contains(?, model)
