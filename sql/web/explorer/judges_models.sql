-- Which judges and candidates have judgments per benchmark (MMMT-IF: checked by code, no judge; its candidates from
-- its summary, not from the mmmt_if_responses view, which would assemble every response), for the compare views'
-- choices.
SELECT 'creation' AS benchmark, judge, model FROM creation_pairwise_judgments WHERE source = 'benchwright'
UNION SELECT 'urs', judge, model FROM urs_judgments WHERE source = 'benchwright'
UNION SELECT 'gap', judge, model FROM gap_score_judgments
UNION SELECT 'mmmt_if', NULL, model FROM mmmt_if_summary
ORDER BY benchmark, judge, model;
