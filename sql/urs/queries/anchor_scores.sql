-- URS's parsed final scores, what its anchor sets are fitted on (benchwright.anchors.urs_sets): one row per
-- judgment whose call returned and whose final score parsed, as the leaderboard averages them.
SELECT model, judge, item_id, final_score AS score, reference_model
FROM urs_judgments
WHERE error IS NULL AND parse_ok AND final_score IS NOT NULL
ORDER BY judge, model, item_id
