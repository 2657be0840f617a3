-- Raters in the MMMT-IF human ratings and preferences (and the files they came in).
SELECT 'mmmt_if_human_ratings/' || source_file AS location, rater, source_file FROM mmmt_if_human_ratings
UNION ALL
SELECT 'mmmt_if_human_preferences/' || source_file AS location, rater, source_file FROM mmmt_if_human_preferences
