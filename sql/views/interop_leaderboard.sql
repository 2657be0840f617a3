-- Bradley-Terry ratings per source and judge (ours: source 'benchwright'; imports: '<importer>:<dataset>'),
-- best first, with bootstrap intervals and the win rate against the anchor (the baseline, rating 1000).
CREATE OR REPLACE VIEW interop_leaderboard AS
SELECT source, judge_display AS judge_name, model_display AS model_name, anchor,
       round(rating, 1) AS rating, round(rating_lower, 1) AS rating_lower, round(rating_upper, 1) AS rating_upper,
       round(win_rate, 2) AS win_rate, round(win_rate_lower, 2) AS win_rate_lower,
       round(win_rate_upper, 2) AS win_rate_upper, judgments, wins, ties, losses, at_bound,
       outcome_weights, simulated, judge, model
FROM interop_ratings
ORDER BY source, judge, rating DESC;
