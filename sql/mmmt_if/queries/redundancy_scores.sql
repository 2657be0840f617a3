-- MMMT-IF's corpus PIF per variant as redundancy compares it (leaderboard, judge, model, score): no judge, so
-- judge ''; declared in benchwright/mmmt_if/declaration.py.
SELECT 'mmmt_if_pif_' || variant AS leaderboard, '' AS judge, model, pif AS score FROM mmmt_if_summary
