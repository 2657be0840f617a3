-- What the LLM calls cost, per benchmark × model × judge × stage, over the whole ledger. `calls` are
-- requests sent to a provider (failed ones included, see `errors`); `cache_hits` were served without a
-- call. Tokens, cost and latency count the calls only: a cache hit cost nothing this time. `judge` is NULL
-- for answers (and `model` for a call that answers for no registry model).
CREATE OR REPLACE VIEW cost_ledger AS
SELECT benchmark, nullif(model, '') AS model, nullif(judge, '') AS judge, stage,
       count(*) FILTER (WHERE NOT cached)                                    AS calls,
       count(*) FILTER (WHERE cached)                                        AS cache_hits,
       count(*) FILTER (WHERE error)                                         AS errors,
       coalesce(sum(tokens_in) FILTER (WHERE NOT cached), 0)                 AS tokens_in,
       coalesce(sum(tokens_out) FILTER (WHERE NOT cached), 0)                AS tokens_out,
       round(coalesce(sum(cost_usd) FILTER (WHERE NOT cached), 0), 6)        AS cost_usd,
       quantile_cont(latency_ms, 0.5) FILTER (WHERE NOT cached AND NOT error)  AS latency_p50_ms,
       quantile_cont(latency_ms, 0.95) FILTER (WHERE NOT cached AND NOT error) AS latency_p95_ms,
       bool_and(simulated)                                                   AS simulated,
       count(DISTINCT run_id)                                                AS runs,
       max(recorded_at)                                                      AS last_recorded_at
FROM llm_ledger
GROUP BY benchmark, model, judge, stage
ORDER BY cost_usd DESC, calls DESC, benchmark, stage, model, judge;
