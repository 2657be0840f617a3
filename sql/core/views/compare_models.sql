-- Two candidates compared item by item under one judge (Creation), every pair both ways round: wins and
-- losses against the baseline and their deltas (a minus b), flips, agreement (sql/core/queries/compare/models.sql
-- says how each is counted). The items: comparison_model_items. CLI: `python3.11 dev.py compare models A B`.
CREATE OR REPLACE VIEW compare_models AS
SELECT * FROM comparison_models
ORDER BY judge, model_a, model_b;
