-- Creation's leaderboards as redundancy compares them (leaderboard, judge, model, score), one score per model
-- and judge; declared in benchwright/creation/declaration.py.
SELECT 'creation_reward' AS leaderboard, judge, model, reward AS score
FROM creation_leaderboard WHERE scope = 'overall'
UNION ALL
SELECT 'creation_win_rate', judge, model, win_rate FROM creation_leaderboard WHERE scope = 'overall'
UNION ALL
SELECT 'creation_vfs', judge, model, vfs FROM creation_leaderboard WHERE scope = 'overall'
