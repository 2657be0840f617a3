-- Which judges and candidates have judgments per benchmark, for the compare view's choices.
SELECT 'creation' AS benchmark, judge, model FROM creation_pairwise_judgments WHERE source = 'benchwright'
UNION SELECT 'urs', judge, model FROM urs_judgments WHERE source = 'benchwright'
ORDER BY benchmark, judge, model;
