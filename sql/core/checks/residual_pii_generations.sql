-- One model's answers on one benchmark (redacted as they arrive); parameters: benchmark, model.
SELECT 'generations/' || benchmark || '/' || model || '/' || item_id || '/' || variant || '#'
       || CAST(sample_index AS VARCHAR) AS location,
       response
FROM generations
WHERE benchmark = ? AND model = ?
