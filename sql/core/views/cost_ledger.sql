-- What the LLM calls cost, per benchmark × model × judge × stage, over the whole ledger. `calls` are
-- requests sent to a provider (failed ones included, see `errors`); `cache_hits` were served without a
-- call (one ledger row counts a run's hits per stage and partition: `results`). Tokens, cost and latency
-- count the calls only: a cache hit cost nothing this time. `judge` is NULL for answers (and `model` for a
-- call that answers for no registry model).
-- model_simulated, judge_simulated: that registry entry is a simulation (flagged when the row was copied,
-- by the rule of assets.common.add_labels; NULL when the row has no model / judge).
-- simulated: either of them is; rows copied before those flags existed carry neither and keep the old
-- meaning (every call went to a simulator).
-- calls: requests sent to a provider (failed ones included).
-- cache_hits: results served from the cache without a call.
-- errors: calls that failed.
-- tokens_in, tokens_out: prompt and completion tokens of the calls (cache hits apart).
-- cost_usd: dollars the calls cost (cache hits apart).
-- latency_p50_ms, latency_p95_ms: median and 95th percentile latency of the successful calls.
-- runs: Dagster runs that made or were served these results.
-- last_recorded_at: when the latest of these ledger rows was recorded (UTC).
CREATE OR REPLACE VIEW cost_ledger AS
SELECT benchmark, nullif(model, '') AS model, nullif(judge, '') AS judge, stage,
       coalesce(sum(results) FILTER (WHERE NOT cached), 0)::BIGINT           AS calls,
       coalesce(sum(results) FILTER (WHERE cached), 0)::BIGINT               AS cache_hits,
       coalesce(sum(results) FILTER (WHERE error), 0)::BIGINT                AS errors,
       coalesce(sum(tokens_in) FILTER (WHERE NOT cached), 0)                 AS tokens_in,
       coalesce(sum(tokens_out) FILTER (WHERE NOT cached), 0)                AS tokens_out,
       round(coalesce(sum(cost_usd) FILTER (WHERE NOT cached), 0), 6)        AS cost_usd,
       quantile_cont(latency_ms, 0.5) FILTER (WHERE NOT cached AND NOT error)  AS latency_p50_ms,
       quantile_cont(latency_ms, 0.95) FILTER (WHERE NOT cached AND NOT error) AS latency_p95_ms,
       bool_and(model_simulated)                                             AS model_simulated,
       bool_and(judge_simulated)                                             AS judge_simulated,
       CASE WHEN count(model_simulated) + count(judge_simulated) = 0 THEN bool_and(simulated)
            ELSE coalesce(bool_and(model_simulated), FALSE) OR coalesce(bool_and(judge_simulated), FALSE)
       END                                                                   AS simulated,
       count(DISTINCT run_id)                                                AS runs,
       max(recorded_at)                                                      AS last_recorded_at
FROM llm_ledger
GROUP BY benchmark, model, judge, stage
ORDER BY cost_usd DESC, calls DESC, benchmark, stage, model, judge;
