-- One Creation item as stored (its text redacted at load where it held personal data).
SELECT item_id, dataset, category, task, role, background, instruction, requirements, subjective_criteria,
       visual_factuality_criteria, ground_truth, reference_answer, image_hashes
FROM creation_items WHERE item_id = ?;
