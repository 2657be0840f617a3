-- AlpacaEval figures per imported source and model: the win rate and its standard error next to the
-- length-controlled win rate (NULL until interop_lc_win_rates has run), best length-controlled first.
-- difficulty_used: whether the length-controlled fit used the instruction difficulty.
-- n_wins: judgments the model won.
-- n_draws: judgments that were a draw.
-- n_total: judgments counted.
-- n_failed: judgments that did not parse at the source.
-- baseline: the model every candidate was compared with.
CREATE OR REPLACE VIEW interop_alpaca_eval_leaderboard AS
SELECT w.source, w.judge, w.model, w.baseline, round(w.win_rate, 2) AS win_rate,
       round(w.standard_error, 2) AS standard_error, round(l.lc_win_rate, 2) AS lc_win_rate,
       l.length_coef_from, l.difficulty_used, w.n_wins, w.n_draws, w.n_total, w.n_failed
FROM interop_win_rates w
LEFT JOIN interop_lc_win_rates l USING (source, judge, model, baseline)
WHERE w.source LIKE 'alpaca_eval:%'
ORDER BY w.source, l.lc_win_rate DESC NULLS LAST, w.win_rate DESC;
