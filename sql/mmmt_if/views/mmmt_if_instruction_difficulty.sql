-- MMMT-IF: per-instruction PIF, one row per instruction and model, standard and appended side by side.
-- judge_simulated is NULL: PIF is checked by code, no judge.
-- instruction_id: the instruction (its checker's id).
-- pif_standard, pif_appended: the share of samples following it, averaged over its contexts, in the standard and instructions-appended variants.
-- category: the instruction's category.
-- contexts: contexts where the instruction was in force (standard variant).
CREATE OR REPLACE VIEW mmmt_if_instruction_difficulty AS
SELECT instruction_id, category, model_display AS model_name,
       max(CASE WHEN variant = 'standard' THEN pif END) AS pif_standard,
       max(CASE WHEN variant = 'instructions_appended' THEN pif END) AS pif_appended,
       max(CASE WHEN variant = 'standard' THEN n END) AS contexts,
       bool_or(model_simulated) AS model_simulated, NULL::BOOLEAN AS judge_simulated, bool_or(simulated) AS simulated,
       model
FROM mmmt_if_pif_by_instruction
GROUP BY instruction_id, category, model_display, model
ORDER BY pif_standard NULLS LAST, instruction_id, model;
