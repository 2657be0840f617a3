-- Bradley-Terry ratings (Creation pairwise judgments, ours and imported) per source, judge and style control,
-- with their bootstrap intervals and the rank by upper bound (every column of the view).
SELECT * FROM interop_leaderboard
ORDER BY source, judge, control, rating DESC NULLS LAST, model;
