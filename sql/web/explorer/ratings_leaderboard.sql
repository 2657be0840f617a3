-- Bradley-Terry ratings (Creation pairwise judgments, ours and imported) per source, judge and style control,
-- with their bootstrap intervals.
SELECT source, judge, judge_name, control, model, model_name, tier, anchor, rating, rating_lower, rating_upper,
       win_rate, judgments, simulated, flagged_injection
FROM interop_leaderboard
ORDER BY source, judge, control, rating DESC NULLS LAST, model;
