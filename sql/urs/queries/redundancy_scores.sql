-- URS's leaderboard as redundancy compares it (leaderboard, judge, model, score); declared in
-- benchwright/urs/declaration.py.
SELECT 'urs_final_score' AS leaderboard, judge, model, final_score AS score
FROM urs_leaderboard WHERE intent = 'all' AND language = 'all'
