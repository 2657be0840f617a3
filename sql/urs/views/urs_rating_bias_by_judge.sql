-- URS rating bias per evaluator: mean over models of (score of a model's answer against its own
-- other answer − 8). Near 0 = calibrated; above 0 = lenient; below 0 = harsh. model_simulated is NULL: a row
-- covers every model.
-- bias: mean over models of (score of an answer against its own other answer − 8).
-- mean_rating: mean of those scores.
-- models: models the bias averages.
CREATE OR REPLACE VIEW urs_rating_bias_by_judge AS
SELECT judge_display AS judge_name, bias, mean_rating, n AS models,
       NULL::BOOLEAN AS model_simulated, judge_simulated, simulated, judge
FROM urs_rating_bias
WHERE model = 'all'
ORDER BY abs(bias);
