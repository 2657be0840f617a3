-- People's fields in the stored URS human pairwise choices (and the file they came in).
SELECT 'urs_human_pairwise/' || source_file AS location, annotator, round_id, source_file FROM urs_human_pairwise
