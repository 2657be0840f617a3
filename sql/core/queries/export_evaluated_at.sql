-- When a benchmark's results for a model were last made: its newest call in the ledger, for the Every Eval Ever
-- records' evaluation_timestamp (benchwright/exports.py).
SELECT benchmark, model, max(recorded_at) AS evaluated_at
FROM llm_ledger
WHERE model <> ''
GROUP BY benchmark, model
