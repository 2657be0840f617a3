-- `dev.py show creation [--judge J] [--control C]`: each judge's Creation ratings (Bradley–Terry against the
-- baseline, rating 1000; 95 % bootstrap intervals over items; the rank by upper bound: 1 + the models clearly above), with
-- the control chosen (none | style | length | markdown; default none), next to Reward and Win Rate against the
-- baseline (creation_leaderboard_overall). $judge NULL: every judge.
SELECT r.judge, r.rank, r.model, r.rating, r.rating_lower, r.rating_upper,
       r.win_rate AS bt_win_rate, r.win_rate_lower AS bt_win_rate_lower, r.win_rate_upper AS bt_win_rate_upper,
       round(o.reward, 1) AS reward, round(o.win_rate, 3) AS win_rate, round(o.vfs, 2) AS vfs, r.judgments,
       o.missing, r.simulated, r.flagged_injection
FROM interop_leaderboard r
LEFT JOIN creation_leaderboard_overall o ON o.judge = r.judge AND o.model = r.model
WHERE r.source = 'benchwright' AND ($judge IS NULL OR r.judge = $judge) AND r.control = coalesce($control, 'none')
ORDER BY r.judge, r.rating DESC;
