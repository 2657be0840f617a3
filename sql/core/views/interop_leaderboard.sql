-- Bradley-Terry ratings per source, judge and style control (ours: source 'benchwright'; imports:
-- '<importer>:<dataset>'), best first, with bootstrap intervals over prompts, the rank by upper bound (1 + the
-- models whose lower bound is above this one's upper bound: benchwright.ratings.upper_bound_ranks) and the win rate
-- against the anchor
-- (the baseline, rating 1000). control: none | style | length | markdown (answer length and markdown
-- counts fitted as covariates, Arena-Hard's style control).
-- flagged_injection: for our own source, the model wrote judge-format strings into its Creation answers;
-- imported sources bring no answers of ours to inspect (FALSE).
CREATE OR REPLACE VIEW interop_leaderboard AS
SELECT r.source, r.judge_display AS judge_name, coalesce(r.control, 'none') AS control, r.rank,
       r.model_display AS model_name, r.anchor,
       round(r.rating, 1) AS rating, round(r.rating_lower, 1) AS rating_lower, round(r.rating_upper, 1) AS rating_upper,
       round(r.win_rate, 2) AS win_rate, round(r.win_rate_lower, 2) AS win_rate_lower,
       round(r.win_rate_upper, 2) AS win_rate_upper, r.judgments, r.wins, r.ties, r.losses, r.at_bound,
       r.style_coefficients, r.outcome_weights, r.bootstrap_rounds, r.seed,
       r.model_simulated, r.judge_simulated, r.simulated, r.judge, r.model,
       coalesce(f.flagged_injection, FALSE) AS flagged_injection
FROM interop_ratings r
LEFT JOIN answer_injection_flags f ON r.source = 'benchwright' AND f.benchmark = 'creation' AND f.model = r.model
ORDER BY r.source, r.judge, control, r.rating DESC;
