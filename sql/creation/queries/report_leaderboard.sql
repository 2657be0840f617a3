-- The main job's printout: the Creation leaderboard, overall (judge and model are slugs; simulated = the offline
-- simulator, not a real model).
SELECT judge, model, round(vfs, 2) AS vfs, round(reward, 1) AS reward, round(win_rate, 3) AS win_rate,
       mb, better, tie, worse, mw, fail, simulated, flagged_injection
FROM creation_leaderboard_overall;
