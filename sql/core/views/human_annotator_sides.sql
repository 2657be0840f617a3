-- Per annotator: how often a decided choice went to the answer shown on the left. The page puts each
-- answer on a random side, so a share far from 0.5 over many choices is a position habit of the person,
-- not a property of the models. Files without recorded sides (the shipped URS sample) are left out.
-- annotator: who chose, as the file names them.
-- choices: choices with recorded sides.
-- decided: choices for A or B (no tie, no cannot-tell).
-- share_left_preferred: share of decided choices that went to the answer shown on the left.
-- share_tie: share of choices that were a tie.
-- share_cannot_tell: share of choices where the person could not tell.
CREATE OR REPLACE VIEW human_annotator_sides AS
WITH choices AS (
    SELECT 'creation' AS benchmark, annotator, winner, left_model, model_a FROM creation_human_pairwise
    WHERE left_model IS NOT NULL
    UNION ALL
    SELECT 'urs', annotator, winner, left_model, model_a FROM urs_human_pairwise WHERE left_model IS NOT NULL
)
SELECT annotator,
       count(*) AS choices,
       count(*) FILTER (WHERE winner IN ('A', 'B')) AS decided,
       avg(CASE WHEN winner IN ('A', 'B') THEN CAST((winner = 'A') = (left_model = model_a) AS INTEGER) END)
           AS share_left_preferred,
       avg(CAST(winner = 'tie' AS INTEGER)) AS share_tie,
       avg(CAST(winner = 'undetermined' AS INTEGER)) AS share_cannot_tell
FROM choices
GROUP BY annotator
ORDER BY annotator;
