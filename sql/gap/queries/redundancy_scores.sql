-- GAP-VQA's judged score as redundancy compares it (leaderboard, judge, model, score); declared in
-- benchwright/gap/declaration.py.
SELECT 'gap_vqa_score' AS leaderboard, judge, model, gpt_score AS score FROM gap_scores
