-- The Creation leaderboard (benchwright/creation/README.md#scoring): one row per (judge, model, scope, scope_value), computed
-- where the judgments live. Same results as benchwright.creation.metrics.leaderboard (the reference):
-- both orders of a pair are separate judgments; failed calls (error) are left out; a parse failure is
-- counted in `fail`, never in n; Reward and Win Rate are NULL when n = 0; vfs is the mean parsed
-- candidate score, NULL when none parsed. Judgments of items not in creation_items count in 'overall'
-- only. A (judge, model, scope) present in only one of the two tables gets zero counts for the other.
WITH item_scopes AS (
    -- item_id is unique in creation_items (the loader refuses duplicates); were it not, the first stored row counts.
    SELECT item_id, arg_min(category, rowid) AS category, arg_min(task, rowid) AS task
    FROM creation_items
    GROUP BY item_id
),
pairwise AS (
    SELECT j.judge, j.model, i.category, i.task,
           -- An outcome outside the scale is a bug upstream: fail loudly, as the reference does.
           CASE WHEN j.outcome IN ('MB', 'B', 'T', 'W', 'MW', 'Fail') THEN j.outcome
                ELSE error('unknown outcome: ' || coalesce(j.outcome, 'NULL')) END AS outcome
    FROM creation_pairwise_judgments j
    LEFT JOIN item_scopes i USING (item_id)
    WHERE j.error IS NULL
),
vfs AS (
    SELECT v.judge, v.model, i.category, i.task,
           v.parse_ok AND v.score_b IS NOT NULL AND NOT isnan(v.score_b) AS parsed, v.score_b
    FROM creation_vfs_judgments v
    LEFT JOIN item_scopes i USING (item_id)
    WHERE v.error IS NULL
),
-- Counts per (judge, model, category, task) first: a few thousand cells, which the three scopes then sum.
pairwise_cells AS (
    SELECT judge, model, category, task,
           count_if(outcome = 'MB') AS mb, count_if(outcome = 'B') AS better, count_if(outcome = 'T') AS tie,
           count_if(outcome = 'W') AS worse, count_if(outcome = 'MW') AS mw, count_if(outcome = 'Fail') AS fail
    FROM pairwise
    GROUP BY ALL
),
vfs_cells AS (
    SELECT judge, model, category, task,
           sum(score_b) FILTER (WHERE parsed) AS vfs_sum, count_if(parsed) AS vfs_n, count_if(NOT parsed) AS vfs_fail
    FROM vfs
    GROUP BY ALL
),
-- Overall, per category and per task; GROUPING() tells the three apart, so a NULL category (item unknown)
-- is dropped from the category scope rather than becoming a group of its own.
pairwise_groups AS (
    SELECT judge, model,
           CASE WHEN GROUPING(category) = 0 THEN 'category' WHEN GROUPING(task) = 0 THEN 'task' ELSE 'overall' END AS scope,
           coalesce(category, task, 'all') AS scope_value,
           sum(mb) AS mb, sum(better) AS better, sum(tie) AS tie, sum(worse) AS worse, sum(mw) AS mw, sum(fail) AS fail
    FROM pairwise_cells
    GROUP BY GROUPING SETS ((judge, model), (judge, model, category), (judge, model, task))
    HAVING NOT (scope = 'category' AND category IS NULL) AND NOT (scope = 'task' AND task IS NULL)
),
vfs_groups AS (
    SELECT judge, model,
           CASE WHEN GROUPING(category) = 0 THEN 'category' WHEN GROUPING(task) = 0 THEN 'task' ELSE 'overall' END AS scope,
           coalesce(category, task, 'all') AS scope_value,
           sum(vfs_sum) / nullif(sum(vfs_n), 0) AS vfs, sum(vfs_n) AS vfs_n, sum(vfs_fail) AS vfs_fail
    FROM vfs_cells
    GROUP BY GROUPING SETS ((judge, model), (judge, model, category), (judge, model, task))
    HAVING NOT (scope = 'category' AND category IS NULL) AND NOT (scope = 'task' AND task IS NULL)
),
counts AS (
    SELECT judge, model, scope, scope_value, v.vfs,
           coalesce(v.vfs_n, 0) AS vfs_n, coalesce(v.vfs_fail, 0) AS vfs_fail,
           coalesce(p.mb, 0) AS mb, coalesce(p.better, 0) AS better, coalesce(p.tie, 0) AS tie,
           coalesce(p.worse, 0) AS worse, coalesce(p.mw, 0) AS mw, coalesce(p.fail, 0) AS fail
    FROM pairwise_groups p
    FULL OUTER JOIN vfs_groups v USING (judge, model, scope, scope_value)
)
SELECT judge, model, scope, scope_value,
       vfs::DOUBLE AS vfs, vfs_n::BIGINT AS vfs_n, vfs_fail::BIGINT AS vfs_fail,
       CASE WHEN n > 0 THEN (100 * mb + 50 * better - 50 * worse - 100 * mw) / n END::DOUBLE AS reward,
       CASE WHEN n > 0 THEN (mb + better) / n END::DOUBLE AS win_rate,
       mb::BIGINT AS mb, better::BIGINT AS better, tie::BIGINT AS tie, worse::BIGINT AS worse, mw::BIGINT AS mw,
       fail::BIGINT AS fail, n::BIGINT AS n
FROM (SELECT *, mb + better + tie + worse + mw AS n FROM counts)
ORDER BY CASE scope WHEN 'overall' THEN 0 WHEN 'category' THEN 1 ELSE 2 END, judge, model, scope_value
