-- URS alignment with people, per judge: with users' satisfaction per intent (Pearson r over
-- intents, survey not per model) and with annotators' Bradley–Terry coefficients. model_simulated is NULL:
-- a row covers every model.
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
