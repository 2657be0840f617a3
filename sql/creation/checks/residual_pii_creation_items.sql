-- The Creation items' text (redacted on load); the requirements list as one text.
SELECT 'creation_items/' || item_id AS location, role, background, instruction, subjective_criteria,
       visual_factuality_criteria, ground_truth, reference_answer,
       array_to_string(requirements, chr(10)) AS requirements
FROM creation_items
