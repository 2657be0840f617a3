-- People's fields in the stored Creation human pairwise choices (and the file they came in).
SELECT 'creation_human_pairwise/' || source_file AS location, annotator, round_id, source_file FROM creation_human_pairwise
