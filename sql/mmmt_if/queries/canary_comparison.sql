-- The registered candidates' mean preference score, (8 autorater criteria + w x PIF) / (8 + w)
-- (benchwright/mmmt_if/preferences.py `preference_scores`), under one judge on the turns the canaries were judged
-- on (standard variant, first sample; benchwright/canaries.py): what a canary's figure is compared with.
-- Parameters: the PIF weight w, judge, turn ids, candidate slugs.
SELECT j.model,
       avg((j.creativity + j.richness + j.visual_perception + j.logical_coherence + j.answer_accuracy
            + j.image_relationship_understanding + j.instruction_following + j.overall_quality + $1 * s.pif)
           / (8 + $1)) AS figure
FROM mmmt_if_autorater_judgments j
JOIN mmmt_if_turn_scores s USING (model, variant, chat_id, turn, sample_index)
WHERE j.judge = $2 AND list_contains($3, j.turn_id) AND list_contains($4, j.model) AND j.variant = 'standard'
  AND j.sample_index = 0 AND j.source = 'benchwright' AND j.error IS NULL AND j.parse_ok AND s.pif IS NOT NULL
GROUP BY j.model
ORDER BY j.model;
