-- Bradley-Terry ratings (Creation pairwise judgments, ours and imported) per source, judge and style control,
-- with their bootstrap intervals. Every column of the view: its rank column was `tier` in snapshots published
-- before the rank by upper bound replaced it, `rank` after; the page shows whichever the snapshot has.
SELECT * FROM interop_leaderboard
ORDER BY source, judge, control, rating DESC NULLS LAST, model;
