-- One benchmark's answers of one model, with the judge formats found in them (parameters: benchmark, model).
SELECT model,
       item_id || '/' || variant || '#' || CAST(sample_index AS VARCHAR) AS key,
       response AS answer,
       injection_kinds
FROM generations
WHERE benchmark = ? AND model = ?
ORDER BY item_id, variant, sample_index
