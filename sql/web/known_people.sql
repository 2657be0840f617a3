-- Names already in the data (players of earlier or imported logs, annotators): a new person may not take one.
SELECT DISTINCT player_id AS name FROM gap_marks
UNION SELECT DISTINCT annotator FROM urs_human_pairwise WHERE annotator IS NOT NULL
UNION SELECT DISTINCT annotator FROM creation_human_pairwise WHERE annotator IS NOT NULL;
