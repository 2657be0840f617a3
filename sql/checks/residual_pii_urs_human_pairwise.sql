-- People's fields in the stored URS human pairwise choices.
SELECT 'urs_human_pairwise/' || source_file AS location, annotator, round_id FROM urs_human_pairwise
