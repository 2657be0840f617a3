-- Two candidates compared item by item under one judge (Creation), every pair both ways round: wins and
-- losses against the baseline and their deltas (a minus b), flips, agreement (sql/core/queries/compare/models.sql
-- says how each is counted). The items: comparison_model_items. CLI: `python3.11 dev.py compare models A B`.
-- compared: items both candidates have a result on.
-- wins_a, wins_b: items candidate a (b) won against the baseline.
-- win_delta: wins_a − wins_b.
-- losses_a, losses_b: items candidate a (b) lost against the baseline.
-- loss_delta: losses_a − losses_b.
-- a_won_b_lost: items a won and b lost.
-- b_won_a_lost: items b won and a lost.
-- mean_value_delta: mean over compared items of value_a − value_b (outcome values MW −2 .. MB 2).
-- model_a, model_b: the two candidates' registry slugs (deltas are a minus b).
-- flipped: items one candidate won and the other lost.
-- agreement: share of compared items with the same result.
-- items: items either candidate has a value on.
CREATE OR REPLACE VIEW compare_models AS
SELECT * FROM comparison_models
ORDER BY judge, model_a, model_b;
