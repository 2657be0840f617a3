-- Every model's stored (redacted) answers to one item of one benchmark.
SELECT model, variant, sample_index, response, error, pii_redactions, injection_kinds, simulated
FROM generations WHERE benchmark = ? AND item_id = ?
ORDER BY model, variant, sample_index;
