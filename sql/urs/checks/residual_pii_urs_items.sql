-- The URS questions and reference answers (redacted on load).
SELECT 'urs_items/' || item_id AS location, question, reference_answer FROM urs_items
