-- What an annotator sees of a Creation item: the task, its criteria and images, the two answers.
-- Parameters: item_id, model_a (the baseline), model_b (the candidate).
SELECT i.role, i.background, i.instruction, i.requirements, i.subjective_criteria,
       i.visual_factuality_criteria, i.image_hashes,
       (SELECT answer FROM creation_references WHERE item_id = i.item_id AND baseline = $2 LIMIT 1) AS answer_a,
       (SELECT response FROM generations WHERE benchmark = 'creation' AND item_id = i.item_id AND model = $3
          AND sample_index = 0 AND response IS NOT NULL LIMIT 1) AS answer_b
FROM creation_items i
WHERE i.item_id = $1;
