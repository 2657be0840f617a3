-- The main job's summary: what its own runs ($1: their run ids) asked of the LLM layer, per benchmark and
-- stage (the cost_ledger view has the full grain: model × judge, latencies).
SELECT benchmark, stage,
       coalesce(sum(results) FILTER (WHERE NOT cached), 0)::BIGINT AS calls,
       coalesce(sum(results) FILTER (WHERE cached), 0)::BIGINT     AS cache_hits,
       coalesce(sum(results) FILTER (WHERE error), 0)::BIGINT      AS errors,
       coalesce(sum(tokens_in) FILTER (WHERE NOT cached), 0)          AS tokens_in,
       coalesce(sum(tokens_out) FILTER (WHERE NOT cached), 0)         AS tokens_out,
       round(coalesce(sum(cost_usd) FILTER (WHERE NOT cached), 0), 6) AS cost_usd
FROM llm_ledger
WHERE list_contains($1::VARCHAR[], run_id)
GROUP BY benchmark, stage
ORDER BY benchmark, stage;
