-- Tables shared by every benchmark. Created if missing at the start of every warehouse session.
-- Rows are replaced per partition (delete + insert by name), so no table relies on column order.

-- Shared columns: a column of one of these names means this in every table and view, unless a comment beside
-- it says more (benchwright/sql_comments.py makes the warehouse's COMMENT ON from them).
-- benchmark: the benchmark's name (creation, urs, gap, mmmt_if, or a plugin's).
-- model: registry slug of the model that answered, the candidate (in an import: the model as its source names it).
-- judge: registry slug of the judge, a judge panel's slug for a panel ('' or NULL where the row has no judge; in
-- an import: the judge as its source names it).
-- model_display, model_name: the registry's display label of `model`.
-- judge_display, judge_name: the registry's display label of `judge`.
-- model_simulated: `model` is an offline simulation (the registry's sim/ models).
-- judge_simulated: `judge` is an offline simulation; NULL where the row has no judge.
-- simulated: the row rests on a simulation (model_simulated or judge_simulated).
-- item_id: the benchmark item's id, as its dataset names it.
-- variant: the form the item was put in (Creation: 'vision' | 'text_only'; MMMT-IF: 'standard' |
-- 'instructions_appended').
-- source: whose judgments the row holds: 'benchwright' (ours) or '<importer>:<dataset>' (an import).
-- parse_failures: judge outputs whose verdict or score did not parse (counted, never a score).
-- error: why the call failed; NULL when it succeeded.
-- sample_index: which sample of the same request, 0-based (each sample is its own call and cache entry).
-- request_key: the call's response-cache key, sha256 of the canonical request (benchwright.llm.request); NULL
-- where no call was made.
-- raw_text: the judge's output as returned (in an import: as its source gives it); NULL when the call failed.
-- parse_ok: the judge's output gave its verdict or score; false also for a failed call (then error is set, and
-- it is no parse failure).
-- source_file: name of the dropped file the row was read from.
-- judge_a, judge_b: registry slugs of the two judges compared (a panel's slug for a panel).

-- Normalized images, content-addressed: the same picture is stored once, whatever its source.
CREATE TABLE IF NOT EXISTS images (
    sha256      VARCHAR NOT NULL,   -- hash of the normalized PNG bytes
    mime        VARCHAR NOT NULL,   -- always 'image/png' (normalized)
    width       INTEGER NOT NULL,   -- pixels, after scaling the longer side to at most 1024
    height      INTEGER NOT NULL,   -- pixels, after scaling
    data        BLOB    NOT NULL    -- the normalized RGB PNG bytes, metadata stripped
);

-- Rows a loader could not use (bad JSON, missing field, corrupt image ...), with where and why.
CREATE TABLE IF NOT EXISTS dataset_problems (
    benchmark   VARCHAR NOT NULL,
    dataset     VARCHAR NOT NULL,   -- the file (or import source) the row came from
    location    VARCHAR NOT NULL,   -- <file>:<line> (or row)
    reason      VARCHAR NOT NULL,   -- why the row could not be used
    field       VARCHAR             -- the column or key at fault, as the file names it (a dotted path inside a
                                    -- record: games[1].score); NULL when the record as a whole is (not JSON,
                                    -- torn, a duplicate) or the file is
);
-- A warehouse made before gains the column, NULL for its rows until their dataset is loaded again.
ALTER TABLE dataset_problems ADD COLUMN IF NOT EXISTS field VARCHAR;


-- Every model answer of every benchmark (partition: model; benchmark is a column).
CREATE TABLE IF NOT EXISTS generations (
    benchmark       VARCHAR NOT NULL,
    model           VARCHAR NOT NULL,   -- registry slug
    item_id         VARCHAR NOT NULL,
    variant         VARCHAR NOT NULL,   -- 'vision' | 'text_only' | benchmark-specific
    sample_index    INTEGER NOT NULL,
    response        VARCHAR,            -- NULL when the call failed (see error)
    error           VARCHAR,
    request_key     VARCHAR NOT NULL,   -- response-cache key: re-parsing never needs a new call
    prompt_version  VARCHAR NOT NULL,   -- the prompt's version, part of the request (and so of its cache key)
    tokens_in       INTEGER,            -- prompt tokens the provider reported; 0 for a failed call
    tokens_out      INTEGER,            -- completion tokens; 0 for a failed call
    latency_ms      DOUBLE,             -- the call's wall time, ms (a cache hit keeps the first call's); 0 for a failed
                                        -- call
    cost_usd        DOUBLE,             -- the call's cost, USD (a cache hit keeps the first call's); 0 for a failed
                                        -- call
    pii_redactions  INTEGER NOT NULL,   -- personal-data spans masked in the response before it was stored
    injection_kinds VARCHAR,            -- judge formats found in the answer (benchwright.answer_injection)
    simulated       BOOLEAN NOT NULL
);
ALTER TABLE generations ADD COLUMN IF NOT EXISTS injection_kinds VARCHAR;

-- The cost ledger (benchwright.llm: CallScope), copied from the response cache's journal by the `llm_ledger`
-- asset: one row per call a step made (failed ones included), and one row per run × stage × partition × called
-- model for the cache hits it was served, `results` counting them (request_key ''). A hit keeps the usage, cost
-- and latency of the call that first answered it (summed); `cached` says this step did not pay for it. Count
-- results with sum(results), never count(*).
CREATE TABLE IF NOT EXISTS llm_ledger (
    ledger_id       VARCHAR NOT NULL,   -- unique per result; copying again adds nothing
    recorded_at     TIMESTAMP NOT NULL, -- UTC
    run_id          VARCHAR NOT NULL,   -- the Dagster run
    benchmark       VARCHAR NOT NULL,
    stage           VARCHAR NOT NULL,   -- the asset that asked
    partition_key   VARCHAR NOT NULL,   -- '' when unpartitioned
    model           VARCHAR NOT NULL,   -- registry slug of the model answering or judged ('' if none)
    judge           VARCHAR NOT NULL,   -- registry slug of the judge ('' for answers)
    llm_model       VARCHAR NOT NULL,   -- the litellm model string called
    request_key     VARCHAR NOT NULL,   -- the call's cache key; '' on a row counting cache hits
    cached          BOOLEAN NOT NULL,   -- the row counts cache hits: this step did not pay for them
    error           BOOLEAN NOT NULL,
    tokens_in       BIGINT NOT NULL,    -- prompt tokens (a hits row: summed over its hits)
    tokens_out      BIGINT NOT NULL,    -- completion tokens (a hits row: summed)
    cost_usd        DOUBLE NOT NULL,    -- USD (a hits row: summed)
    latency_ms      DOUBLE NOT NULL,    -- ms (a hits row: summed)
    simulated       BOOLEAN NOT NULL    -- this one call went to the offline simulator
);

-- Which side is a simulation (assets.common.add_labels; the ledger: assets.ledger): model_simulated for the
-- `model` slug, judge_simulated for the `judge` slug, NULL where the table has no such column;
-- `simulated` = either.
ALTER TABLE llm_ledger ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE llm_ledger ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
-- Rows copied before hits were counted stand for one result each.
ALTER TABLE llm_ledger ADD COLUMN IF NOT EXISTS results INTEGER DEFAULT 1;

-- The answer and verdict tables carry the same flags (assets.common.flagged_rows, SIMULATION_SIDES): model_simulated
-- for the model that answered (a reference's baseline, a description's describer), judge_simulated for the
-- judge (NULL in an answer table: no judge); `simulated` = either. A warehouse made before gains the columns
-- NULL for its old rows, filled when their partition is written again.
ALTER TABLE generations ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE generations ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
