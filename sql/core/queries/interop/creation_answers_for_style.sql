-- The answers our own Creation judgments compared, to count their style (benchwright.ratings.answer_style):
-- each candidate's answer (sample 0) and the baseline's reference answer, per item. is_reference marks the
-- latter: the battles name that side by the ratings' anchor, not by who wrote it (assets/interop._anchors).
SELECT model, item_id, response AS answer, FALSE AS is_reference
FROM generations
WHERE benchmark = 'creation' AND sample_index = 0 AND response IS NOT NULL
UNION ALL
SELECT baseline AS model, item_id, answer, TRUE AS is_reference
FROM creation_references
WHERE answer IS NOT NULL
ORDER BY model, item_id, is_reference
