-- URS: mean score of each intent criterion per judge × model × intent × language (and 'all' margins).
-- criterion: the intent's criterion.
-- mean_score: the judge's mean score on it.
CREATE OR REPLACE VIEW urs_criterion_scores AS
SELECT judge_display AS judge_name, model_display AS model_name, intent, language, criterion, mean_score, n,
       model_simulated, judge_simulated, simulated,
       judge, model
FROM urs_criterion_means
ORDER BY judge, model, intent, language, criterion;
