-- Two judges (panels included) compared item by item, per model and over all models (model = 'all'),
-- every pair both ways round: the candidate's wins and losses in each judge's verdicts and their deltas,
-- flips, agreement, exact agreement (sql/core/queries/compare/judges.sql says how each is counted). The units:
-- comparison_judge_items. CLI: `python3.11 dev.py compare judges A B`.
-- judge_a, judge_b: the two judges' slugs (a panel's slug for a panel).
-- compared: units both judges parsed.
-- wins_a, wins_b: the candidate's wins in judge a's (b's) verdicts.
-- win_delta: wins_a − wins_b.
-- losses_a, losses_b: the candidate's losses in judge a's (b's) verdicts.
-- loss_delta: losses_a − losses_b.
-- a_won_b_lost: units where the candidate won for judge a and lost for judge b.
-- b_won_a_lost: the other way round.
-- exact_agreement: share of compared units with the same five-point verdict.
-- unparsed_a, unparsed_b: units only the other judge parsed.
-- flipped: units where one judge has the candidate win and the other lose.
-- agreement: share of compared units with the same result (win / tie / loss).
-- units: units either judge judged.
-- model: the candidate, or 'all' over all candidates.
CREATE OR REPLACE VIEW compare_judges AS
SELECT * FROM comparison_judges
ORDER BY model = 'all' DESC, model, judge_a, judge_b;
