-- Creation (benchwright/creation/README.md): items, baseline answers, image descriptions, judgments, metrics.

CREATE TABLE IF NOT EXISTS creation_items (
    item_id                     VARCHAR NOT NULL,
    dataset                     VARCHAR NOT NULL, -- file name the item came from
    category                    VARCHAR NOT NULL, -- the task's category (Literary Writing, Common Functional Writing
                                                  -- ...)
    task                        VARCHAR NOT NULL, -- the task name (the published task_name)
    role                        VARCHAR NOT NULL, -- the role the query gives the model (personal data redacted, as in
                                                  -- every text column here)
    background                  VARCHAR NOT NULL, -- the query's background
    instruction                 VARCHAR NOT NULL, -- the query's instruction
    requirements                VARCHAR[] NOT NULL, -- the requirements, in order, without their numbers
    subjective_criteria         VARCHAR NOT NULL, -- the judge's criteria for the pairwise comparison
    visual_factuality_criteria  VARCHAR,    -- the judge's points for the VFS; NULL when the item has none
    ground_truth                VARCHAR,    -- the dataset's ground truth; NULL when it ships none
    reference_answer            VARCHAR,    -- from the dataset, when it ships one
    image_hashes                VARCHAR[] NOT NULL -- sha256 keys into images, in the item's order
);

-- The baseline answer every candidate is compared with (dataset's own, or the baseline model's).
CREATE TABLE IF NOT EXISTS creation_references (
    item_id       VARCHAR NOT NULL,
    baseline      VARCHAR NOT NULL,   -- registry slug, or 'dataset'
    answer        VARCHAR,            -- the reference answer; NULL when the baseline model's call failed
    error         VARCHAR,
    request_key   VARCHAR,            -- the baseline model's call's cache key; NULL for baseline 'dataset'
    simulated     BOOLEAN NOT NULL
);

-- Image descriptions for text-only candidates (benchwright/creation/README.md#the-query).
CREATE TABLE IF NOT EXISTS creation_image_descriptions (
    item_id       VARCHAR NOT NULL,
    describer     VARCHAR NOT NULL,   -- registry slug of the model that described the images
    mode          VARCHAR NOT NULL,   -- 'generic' | 'query_specific'
    focus         VARCHAR,            -- the "pay special attention to" part, query-specific only
    description   VARCHAR,            -- the description; NULL when the call failed
    error         VARCHAR,
    simulated     BOOLEAN NOT NULL
);

-- One row per (model, judge, item, order). Raw text, parsed verdict and parse_ok stay separate,
-- so a parser fix re-parses without a new API call.
CREATE TABLE IF NOT EXISTS creation_pairwise_judgments (
    model               VARCHAR NOT NULL,
    judge               VARCHAR NOT NULL,
    item_id             VARCHAR NOT NULL,
    judge_order         INTEGER NOT NULL,  -- 1: baseline is A; 2: candidate is A
    candidate_position  VARCHAR NOT NULL,  -- 'B' in order 1, 'A' in order 2
    raw_text            VARCHAR,
    verdict             VARCHAR,           -- canonical A>>B ... B>>A, NULL when unparsed
    parse_ok            BOOLEAN NOT NULL,
    parse_problem       VARCHAR,           -- why not: no_verdict, bad_verdict, echoed_answer ...
    outcome             VARCHAR,           -- MB B T W MW Fail; NULL when the call itself failed
    error               VARCHAR,
    candidate_len       INTEGER,           -- characters of the candidate's answer; NULL in an import without lengths
    baseline_len        INTEGER,           -- characters of the baseline's answer; NULL in an import without lengths
    request_key         VARCHAR,
    simulated           BOOLEAN NOT NULL,
    source              VARCHAR NOT NULL   -- 'benchwright' or the importer that wrote the row
);

CREATE TABLE IF NOT EXISTS creation_vfs_judgments (
    model        VARCHAR NOT NULL,
    judge        VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    raw_text     VARCHAR,
    score_a      DOUBLE,     -- reference answer's score, 0-10
    score_b      DOUBLE,     -- candidate's score, 0-10 (the VFS)
    parse_ok     BOOLEAN NOT NULL,
    parse_problem VARCHAR,   -- why not: no_score_b, echoed_answer ...
    error        VARCHAR,
    request_key  VARCHAR,
    simulated    BOOLEAN NOT NULL,
    source       VARCHAR NOT NULL
);

-- Warehouses written before the echo defence gain the column (NULL for their rows until re-parsed).
ALTER TABLE creation_pairwise_judgments ADD COLUMN IF NOT EXISTS parse_problem VARCHAR;
ALTER TABLE creation_vfs_judgments ADD COLUMN IF NOT EXISTS parse_problem VARCHAR;

CREATE TABLE IF NOT EXISTS creation_leaderboard (
    judge          VARCHAR NOT NULL,
    model          VARCHAR NOT NULL,
    scope          VARCHAR NOT NULL,   -- 'overall' | 'category' | 'task'
    scope_value    VARCHAR NOT NULL,   -- the category or task the row covers (scope 'category' | 'task')
    vfs            DOUBLE,             -- Visual Factuality Score: mean of the judge's parsed 0-10 scores of the answer
    vfs_n          INTEGER,            -- VFS verdicts that parsed
    vfs_fail       INTEGER,            -- VFS verdicts that did not parse
    reward         DOUBLE,             -- (100·MB + 50·B − 50·W − 100·MW) / n, −100..100; NULL when n = 0
    win_rate       DOUBLE,             -- (MB + B) / n, 0-1, against the baseline
    mb             INTEGER,            -- verdicts: the answer much better than the baseline's
    better         INTEGER,            -- verdicts: better
    tie            INTEGER,            -- verdicts: a tie
    worse          INTEGER,            -- verdicts: worse
    mw             INTEGER,            -- verdicts: much worse
    fail           INTEGER,            -- pairwise verdicts that did not parse
    n              INTEGER,            -- pairwise verdicts that parsed (both orders)
    model_display  VARCHAR,
    judge_display  VARCHAR,
    simulated      BOOLEAN NOT NULL    -- the candidate or the judge is a simulation
);

CREATE TABLE IF NOT EXISTS judge_quality (
    judge                VARCHAR NOT NULL,
    pairs                INTEGER,  -- (item, model) with both orders parsed: what the consistencies are over
    exact_consistency    DOUBLE,   -- share of (item, model) whose order-2 verdict mirrors order 1's
    relaxed_consistency  DOUBLE,   -- share whose two outcomes are at most one step apart (MW < W < T < B < MB)
    parse_rate           DOUBLE,   -- share of verdicts that parsed
    p_prefer_first       DOUBLE,   -- share of decided verdicts that favour position A
    p_prefer_longer      DOUBLE,   -- share of decided verdicts that favour the longer answer (lengths differing)
    judge_display        VARCHAR,
    simulated            BOOLEAN NOT NULL
);

-- Which side is a simulation (assets.common.add_labels; the ledger: assets.ledger): model_simulated for the
-- `model` slug, judge_simulated for the `judge` slug, NULL where the table has no such column;
-- `simulated` = either.
ALTER TABLE creation_leaderboard ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE creation_leaderboard ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE judge_quality ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE judge_quality ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;

-- The answer and verdict tables carry the same flags (assets.common.flagged_rows, SIMULATION_SIDES): model_simulated
-- for the model that answered (a reference's baseline, a description's describer), judge_simulated for the
-- judge (NULL in an answer table: no judge); `simulated` = either. A warehouse made before gains the columns
-- NULL for its old rows, filled when their partition is written again.
ALTER TABLE creation_references ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE creation_references ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE creation_image_descriptions ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE creation_image_descriptions ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE creation_pairwise_judgments ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE creation_pairwise_judgments ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE creation_vfs_judgments ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE creation_vfs_judgments ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
