-- URS (benchwright/urs/README.md): user questions by intent, reference answers, intent-aware judgments, metrics.
-- Answers live in the shared `generations` table with benchmark = 'urs' (samples 0 and 1).

CREATE TABLE IF NOT EXISTS urs_items (
    item_id           VARCHAR NOT NULL,
    dataset           VARCHAR NOT NULL,   -- file name the item came from
    intent            VARCHAR NOT NULL,   -- the name in benchwright/urs/README.md#data, e.g. 'Factual QA'
    language          VARCHAR NOT NULL,   -- 'en' | 'zh'
    question          VARCHAR NOT NULL,   -- personal data already redacted
    reference_answer  VARCHAR,            -- the dataset's, redacted; NULL when it ships none
    source_intent     VARCHAR NOT NULL,   -- the label as the file wrote it
    source_row        INTEGER NOT NULL,   -- record number in the file (1 = first after the header)
    pii_redactions    INTEGER NOT NULL    -- personal-data spans masked in question + reference
);

-- The reference answer each judgment compares with: the dataset's or the reference model's.
CREATE TABLE IF NOT EXISTS urs_references (
    item_id          VARCHAR NOT NULL,
    reference_model  VARCHAR NOT NULL,    -- registry slug, or 'dataset'
    answer           VARCHAR,             -- the reference answer; NULL when the reference model's call failed
    error            VARCHAR,
    request_key      VARCHAR,             -- the reference model's call's cache key; NULL for reference_model 'dataset'
    simulated        BOOLEAN NOT NULL
);

-- One row per (model, judge, item): sample 0 judged against the item's reference answer.
-- Raw text, parsed scores and parse_ok are separate, so a parser fix needs no new call.
CREATE TABLE IF NOT EXISTS urs_judgments (
    model             VARCHAR NOT NULL,
    judge             VARCHAR NOT NULL,
    item_id           VARCHAR NOT NULL,
    intent            VARCHAR NOT NULL,   -- the item's intent (urs_items.intent)
    language          VARCHAR NOT NULL,   -- the item's language: 'en' | 'zh'
    reference_model   VARCHAR NOT NULL,   -- whose reference answer the judge compared with: a registry slug, or
                                          -- 'dataset'
    raw_text          VARCHAR,
    final_score       DOUBLE,             -- 1-10 (a judge panel's: the mean of its members'); NULL when unparsed or the call failed
    criterion_scores  VARCHAR,            -- JSON {criterion: score}, English criterion names
    parse_ok          BOOLEAN NOT NULL,
    parse_problem     VARCHAR,            -- why not: no_dict, no_final_score, echoed_answer ...
    error             VARCHAR,            -- a failed call: neither a score nor a parse failure
    request_key       VARCHAR,
    simulated         BOOLEAN NOT NULL,
    source            VARCHAR NOT NULL
);

-- Cross-validation grid (benchwright/urs/README.md#cross-validation-and-rating-bias): judge × reference model (its sample 1) × candidate (its sample 0) × item.
CREATE TABLE IF NOT EXISTS urs_cross_judgments (
    judge            VARCHAR NOT NULL,
    reference_model  VARCHAR NOT NULL,  -- registry slug of the model whose sample 1 is the reference
    model            VARCHAR NOT NULL,
    item_id          VARCHAR NOT NULL,
    intent           VARCHAR NOT NULL,  -- the item's intent (urs_items.intent)
    language         VARCHAR NOT NULL,  -- the item's language: 'en' | 'zh'
    raw_text         VARCHAR,
    final_score      INTEGER,           -- 1-10; NULL when unparsed or the call failed
    parse_ok         BOOLEAN NOT NULL,
    parse_problem    VARCHAR,
    error            VARCHAR,
    request_key      VARCHAR,
    simulated        BOOLEAN NOT NULL
);

-- Warehouses written before the echo defence gain the column (NULL for their rows until re-parsed).
ALTER TABLE urs_judgments ADD COLUMN IF NOT EXISTS parse_problem VARCHAR;
ALTER TABLE urs_cross_judgments ADD COLUMN IF NOT EXISTS parse_problem VARCHAR;

CREATE TABLE IF NOT EXISTS urs_leaderboard (
    judge           VARCHAR NOT NULL,
    model           VARCHAR NOT NULL,
    intent          VARCHAR NOT NULL,    -- an intent, or 'all'
    language        VARCHAR NOT NULL,    -- 'en' | 'zh' | 'all'
    final_score     DOUBLE,              -- mean of parsed final scores; NULL when none parsed
    n               INTEGER NOT NULL,    -- final scores that parsed (what final_score averages)
    parse_failures  INTEGER NOT NULL,
    model_display   VARCHAR,
    judge_display   VARCHAR,
    simulated       BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS urs_criterion_means (
    judge          VARCHAR NOT NULL,
    model          VARCHAR NOT NULL,
    intent         VARCHAR NOT NULL,   -- an intent, or 'all'
    language       VARCHAR NOT NULL,   -- 'en' | 'zh' | 'all'
    criterion      VARCHAR NOT NULL,   -- the intent's criterion, in English
    mean_score     DOUBLE NOT NULL,    -- the judge's mean score on that criterion
    n              INTEGER NOT NULL,   -- scores the mean is over
    model_display  VARCHAR,
    judge_display  VARCHAR,
    simulated      BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS urs_cross_validation (
    judge                    VARCHAR NOT NULL,
    reference_model          VARCHAR NOT NULL, -- registry slug of the model whose second sample is the reference
    model                    VARCHAR NOT NULL,
    mean_score               DOUBLE,       -- the candidate's mean parsed score against that reference
    n                        INTEGER NOT NULL, -- scores that parsed
    parse_failures           INTEGER NOT NULL,
    rank                     DOUBLE,       -- within (judge, reference_model), 1 = best
    judge_display            VARCHAR,
    reference_model_display  VARCHAR,          -- the registry's display label of reference_model
    model_display            VARCHAR,
    simulated                BOOLEAN NOT NULL
);

-- bias = mean rating of a model's answer against its own other answer − 8; model 'all' = bias(judge).
CREATE TABLE IF NOT EXISTS urs_rating_bias (
    judge          VARCHAR NOT NULL,
    model          VARCHAR NOT NULL,
    mean_rating    DOUBLE NOT NULL,    -- mean score of a model's answer against its own other answer
    bias           DOUBLE NOT NULL,    -- mean_rating − 8
    n              INTEGER NOT NULL,   -- scores (a model) or models ('all') averaged
    judge_display  VARCHAR,
    model_display  VARCHAR,
    simulated      BOOLEAN NOT NULL
);

-- Alignment inputs as loaded from their file drops, and the results.
CREATE TABLE IF NOT EXISTS urs_user_satisfaction (
    intent        VARCHAR NOT NULL,       -- the intent the users rated (as urs_items.intent)
    satisfaction  DOUBLE NOT NULL,        -- users' reported satisfaction, 1-5
    model         VARCHAR,                -- NULL when the survey is not per model
    source_file   VARCHAR NOT NULL        -- the survey file's name
);

CREATE TABLE IF NOT EXISTS urs_user_alignment (
    judge        VARCHAR NOT NULL,
    model        VARCHAR NOT NULL,        -- 'all' when the survey is not per model
    n_intents    INTEGER NOT NULL,        -- intents with both a benchmark score and a satisfaction
    pearson_r      DOUBLE,                -- Pearson r across intents of the mean final score (language 'all') and the
                                          -- mean satisfaction
    p_value        DOUBLE,                -- two-sided p of pearson_r; NULL with it
    source_file    VARCHAR NOT NULL,      -- the survey file's name
    judge_display  VARCHAR,
    simulated      BOOLEAN NOT NULL     -- the judge (or the model) is a simulation
);

CREATE TABLE IF NOT EXISTS urs_human_pairwise (
    item_id      VARCHAR,
    model_a      VARCHAR NOT NULL,        -- the model whose answer is A
    model_b      VARCHAR NOT NULL,        -- the model whose answer is B
    winner       VARCHAR NOT NULL,        -- 'A' | 'B' | 'tie' | 'undetermined'
    annotator    VARCHAR,                 -- who chose (personal data replaced by a stable pseudonym person-<hex>); NULL
                                          -- when the file does not say
    source_file  VARCHAR NOT NULL         -- the CSV's name in the drop folder (one named after a person: a pseudonym)
);
-- Added with the annotation page (how strongly, which side was left, the order shown, when); a warehouse
-- made before gets them here. NULL for files that do not record them (e.g. the shipped sample).
ALTER TABLE urs_human_pairwise ADD COLUMN IF NOT EXISTS strength INTEGER;
ALTER TABLE urs_human_pairwise ADD COLUMN IF NOT EXISTS left_model VARCHAR;
ALTER TABLE urs_human_pairwise ADD COLUMN IF NOT EXISTS item_position INTEGER;
ALTER TABLE urs_human_pairwise ADD COLUMN IF NOT EXISTS round_id VARCHAR;
ALTER TABLE urs_human_pairwise ADD COLUMN IF NOT EXISTS recorded_at VARCHAR;
ALTER TABLE urs_human_pairwise ADD COLUMN IF NOT EXISTS seconds_taken DOUBLE;

CREATE TABLE IF NOT EXISTS urs_bradley_terry (
    model        VARCHAR NOT NULL,
    coefficient  DOUBLE NOT NULL,      -- natural-log strength, centred on 0
    rating       DOUBLE NOT NULL,      -- the same fit on the Elo scale (mean 1000)
    comparisons  INTEGER NOT NULL,     -- decided comparisons (ties included, 'undetermined' not)
    wins         INTEGER NOT NULL,     -- comparisons the model won
    ties         INTEGER NOT NULL,     -- comparisons that were a tie
    losses       INTEGER NOT NULL,     -- comparisons the model lost
    at_bound       BOOLEAN NOT NULL,   -- won or lost everything: no finite estimate
    source_file    VARCHAR NOT NULL,   -- the files the choices came from, comma-separated
    model_display  VARCHAR,
    simulated      BOOLEAN NOT NULL    -- the model is a simulation (the choices are the file's)
);

CREATE TABLE IF NOT EXISTS urs_human_alignment (
    judge         VARCHAR NOT NULL,
    n_models      INTEGER NOT NULL,   -- models with both an overall final score and a Bradley-Terry coefficient
    pearson_r     DOUBLE,             -- Pearson r of the overall final score and the coefficient across those models
    p_value       DOUBLE,             -- two-sided p of pearson_r; NULL with it
    spearman_rho   DOUBLE,            -- Spearman rho of the same; NULL below 3 models
    ranks_agree    BOOLEAN NOT NULL,  -- the two orders of the models are the same (false below 2 models)
    source_file    VARCHAR NOT NULL,  -- the files the choices came from, comma-separated
    judge_display  VARCHAR,
    simulated      BOOLEAN NOT NULL
);

-- Judge panels average their members' scores (benchwright/panels.py): warehouses written before panels
-- widen the column; whole numbers stay what they were.
ALTER TABLE urs_judgments ALTER final_score SET DATA TYPE DOUBLE;

-- Which side is a simulation (assets.common.add_labels; the ledger: assets.ledger): model_simulated for the
-- `model` slug, judge_simulated for the `judge` slug, NULL where the table has no such column;
-- `simulated` = either.
ALTER TABLE urs_leaderboard ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_leaderboard ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE urs_criterion_means ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_criterion_means ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE urs_cross_validation ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_cross_validation ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE urs_rating_bias ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_rating_bias ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE urs_user_alignment ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_user_alignment ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE urs_human_alignment ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_human_alignment ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE urs_bradley_terry ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_bradley_terry ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;

-- The answer and verdict tables carry the same flags (assets.common.flagged_rows, SIMULATION_SIDES): model_simulated
-- for the model that answered (a reference's baseline, a description's describer), judge_simulated for the
-- judge (NULL in an answer table: no judge); `simulated` = either. A warehouse made before gains the columns
-- NULL for its old rows, filled when their partition is written again.
ALTER TABLE urs_references ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_references ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE urs_judgments ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_judgments ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE urs_cross_judgments ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE urs_cross_judgments ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
