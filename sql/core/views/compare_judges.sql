-- Two judges (panels included) compared item by item, per model and over all models (model = 'all'),
-- every pair both ways round: the candidate's wins and losses in each judge's verdicts and their deltas,
-- flips, agreement, exact agreement (sql/core/queries/compare/judges.sql says how each is counted). The units:
-- comparison_judge_items. CLI: `python3.11 dev.py compare judges A B`.
CREATE OR REPLACE VIEW compare_judges AS
SELECT * FROM comparison_judges
ORDER BY model = 'all' DESC, model, judge_a, judge_b;
