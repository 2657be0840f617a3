-- One URS item as stored (questions and references are redacted of personal data at load).
SELECT item_id, dataset, intent, language, question, reference_answer, pii_redactions
FROM urs_items WHERE item_id = ?;
