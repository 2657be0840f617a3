-- Every leaderboard of ours as (leaderboard, judge, model, score), one score per model: what the
-- redundancy metric compares with other benchmarks. A leaderboard without a judge has judge ''.
SELECT 'creation_reward' AS leaderboard, judge, model, reward AS score
FROM creation_leaderboard WHERE scope = 'overall'
UNION ALL
SELECT 'creation_win_rate', judge, model, win_rate FROM creation_leaderboard WHERE scope = 'overall'
UNION ALL
SELECT 'creation_vfs', judge, model, vfs FROM creation_leaderboard WHERE scope = 'overall'
UNION ALL
SELECT 'urs_final_score', judge, model, final_score FROM urs_leaderboard WHERE intent = 'all' AND language = 'all'
UNION ALL
SELECT 'mmmt_if_pif_' || variant, '', model, pif FROM mmmt_if_summary
UNION ALL
SELECT 'gap_vqa_score', judge, model, gpt_score FROM gap_scores
