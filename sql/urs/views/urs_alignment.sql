-- URS alignment with people, per judge: with users' satisfaction per intent (Pearson r over
-- intents, survey not per model) and with annotators' Bradley–Terry coefficients. model_simulated is NULL:
-- a row covers every model.
-- n_intents: intents the user-satisfaction correlation runs over.
-- user_pearson_r, user_p_value: Pearson r of the judge's mean score with users' satisfaction over intents, and its p-value.
-- n_models: models the annotator correlation runs over.
-- annotator_pearson_r, annotator_p_value, annotator_spearman_rho: the judge's scores against the annotators' Bradley–Terry coefficients over models.
-- ranks_agree: the judge ranks the models as the annotators do.
CREATE OR REPLACE VIEW urs_alignment AS
SELECT coalesce(u.judge_display, h.judge_display) AS judge_name, coalesce(u.judge, h.judge) AS judge,
       u.n_intents, u.pearson_r AS user_pearson_r, u.p_value AS user_p_value,
       h.n_models, h.pearson_r AS annotator_pearson_r, h.p_value AS annotator_p_value,
       h.spearman_rho AS annotator_spearman_rho, h.ranks_agree,
       NULL::BOOLEAN AS model_simulated, coalesce(u.judge_simulated, h.judge_simulated) AS judge_simulated,
       coalesce(u.simulated, FALSE) OR coalesce(h.simulated, FALSE) AS simulated
FROM (SELECT * FROM urs_user_alignment WHERE model = 'all') u
FULL OUTER JOIN urs_human_alignment h ON u.judge = h.judge
ORDER BY judge;
