-- The main job's printout: the URS leaderboard (mean final score 1-10; the reference answer is worth 8).
SELECT judge, model, round(final_score, 2) AS final_score, n, parse_failures, flagged_injection
FROM urs_leaderboard_overall;
