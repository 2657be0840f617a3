-- The integrity canaries' results (benchwright/canaries.py, docs/CANARIES.md): per judge × benchmark × figure × canary,
-- the benchmark's figure for a fixed answer (constant, judge formats and instructions, style only, blind), the
-- weakest registered candidate's figure on the same items under the same judge, the threshold and whether the
-- canary beats it (the check canaries_lose). `canary` is always true: canaries are listed like models here and
-- in no leaderboard.
-- Every column is canary_results' own (sql/core/ddl/75_canaries.sql).
CREATE OR REPLACE VIEW canary_report AS
SELECT judge, judge_display, benchmark, model, model_display, canary_kind, metric, items, judged, parse_failures,
       failed_calls, figure, figure_lower, weakest_model, weakest_figure, null_figure, threshold, beats_threshold,
       canary, model_simulated, judge_simulated, simulated
FROM canary_results
ORDER BY judge, benchmark, metric, model;
