-- People's fields in the stored Creation human pairwise choices.
SELECT 'creation_human_pairwise/' || source_file AS location, annotator, round_id FROM creation_human_pairwise
