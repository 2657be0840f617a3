-- Creation human choices that compared the item's baseline with a candidate, as the judges did (the others are set
-- aside by creation_human_alignment with a reason); `value` is the candidate's -2..+2 value, NULL for 'cannot tell'.
SELECT h.item_id, h.model_a, h.model_b, h.winner, h.value, h.annotator
FROM creation_human_pairwise h
JOIN creation_references r ON r.item_id = h.item_id AND r.baseline = h.model_a
WHERE h.value IS NOT NULL
