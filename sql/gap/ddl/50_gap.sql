-- GAP (benchwright/gap/README.md): game images, ingested game logs, reliability, selection, rewards, the player
-- interaction model and the GAP-VQA dataset. Image bytes live in `images`.

-- Shared columns: these names mean this in every table and view (sql/core/ddl/00_core.sql has the others).
-- image_id: the game image's id (gap_images).
-- player_id: the player, as the game log names them (personal data replaced by a stable pseudonym person-<hex>).
-- session_id: the game session (pseudonymised like player_id).
-- question_index: the question's number on its picture, 0-based.
-- file_sha256: sha256 of the log file's bytes (gap_log_files).

-- Game images with exact ground truth (JSON list of objects; '[]' for registered real images).
CREATE TABLE IF NOT EXISTS gap_images (
    image_id    VARCHAR NOT NULL,
    image_set   VARCHAR NOT NULL,     -- 'tainted' | 'untainted'
    sha256      VARCHAR NOT NULL,     -- key into images
    truth       VARCHAR NOT NULL      -- JSON list of the drawn objects {shape, colour, x, y, size} (x, y: centre as a
                                      -- fraction of the side); '[]' for a registered real image
);

-- One row per log file content read (sha256): the very same bytes are not read twice. Marks are
-- de-duplicated by their own key, whatever file brings them.
CREATE TABLE IF NOT EXISTS gap_log_files (
    file_sha256      VARCHAR NOT NULL,
    file_name        VARCHAR NOT NULL,   -- the file's name when it was read
    lines_loaded     INTEGER NOT NULL,   -- lines stored as marks
    lines_quarantined INTEGER NOT NULL,  -- lines refused into gap_log_quarantine
    ingested_at      TIMESTAMP NOT NULL  -- when the file was read (UTC)
);

-- One row per good log line: a question, the model's answer and the player's mark.
CREATE TABLE IF NOT EXISTS gap_marks (
    file_sha256      VARCHAR NOT NULL,
    line_no          INTEGER NOT NULL,   -- line of file_name the mark was first read at
    session_id       VARCHAR NOT NULL,
    player_id        VARCHAR NOT NULL,
    session_start    TIMESTAMP NOT NULL, -- when the session started, as its log says
    image_id         VARCHAR NOT NULL,
    tainted          BOOLEAN NOT NULL,   -- the image is from the tainted set (answers there may be planted errors)
    image_order      INTEGER NOT NULL,   -- the picture's place in its session, 1-based
    time_limit_s     DOUBLE NOT NULL,    -- seconds allowed per picture (the game's rule: 120)
    question_index   INTEGER NOT NULL,
    question         VARCHAR NOT NULL,   -- the player's question (personal data redacted)
    model_answer     VARCHAR NOT NULL,   -- the model's answer shown to the player (personal data redacted)
    instructed_wrong BOOLEAN NOT NULL,   -- the model was told to answer subtly wrong (a planted error; tainted images
                                         -- only)
    player_mark      VARCHAR NOT NULL,   -- 'correct' | 'wrong'
    seconds_taken    DOUBLE NOT NULL,    -- seconds the player spent, 0..time_limit_s
    file_name        VARCHAR             -- where the mark was first read (with line_no)
);
-- A mark is stored once by its natural key (session_id, image_order, question_index).
ALTER TABLE gap_marks ADD COLUMN IF NOT EXISTS file_name VARCHAR;

-- Log lines that could not be used, with the reason (the rest of the file loads).
CREATE TABLE IF NOT EXISTS gap_log_quarantine (
    file_sha256  VARCHAR NOT NULL,
    file_name    VARCHAR NOT NULL,  -- the log file's name
    line_no      INTEGER NOT NULL,  -- line number in the file
    reason       VARCHAR NOT NULL,  -- why the line could not be used
    line         VARCHAR NOT NULL   -- the line as read
);

-- The estimate of benchwright/gap/README.md#which-questions-are-kept after every tainted mark, in play order.
CREATE TABLE IF NOT EXISTS gap_reliability_history (
    player_id       VARCHAR NOT NULL,
    session_id      VARCHAR NOT NULL,
    image_id        VARCHAR NOT NULL,
    question_index  INTEGER NOT NULL,
    tainted_marks   INTEGER NOT NULL,  -- the player's tainted marks so far, this one included
    reliability     DOUBLE NOT NULL    -- the player's estimate after this mark (as gap_player_reliability.reliability)
);

CREATE TABLE IF NOT EXISTS gap_player_reliability (
    player_id              VARCHAR NOT NULL,
    planted_total          INTEGER NOT NULL,  -- tainted marks on planted errors (instructed_wrong)
    planted_marked_wrong   INTEGER NOT NULL,  -- of those, marked Wrong
    honest_total           INTEGER NOT NULL,  -- tainted marks on honest answers
    honest_marked_wrong    INTEGER NOT NULL,  -- of those, marked Wrong
    p_wrong_when_planted   DOUBLE NOT NULL,   -- Beta(1,1) posterior mean
    p_wrong_when_honest    DOUBLE NOT NULL,   -- Beta(1,1) posterior mean of marking an honest answer Wrong
    reliability            DOUBLE NOT NULL    -- P(M=0 | H=0, untainted)
);

-- Untainted questions kept as adversarial (player's estimate > θ).
CREATE TABLE IF NOT EXISTS gap_adversarial_questions (
    session_id      VARCHAR NOT NULL,
    player_id       VARCHAR NOT NULL,
    image_id        VARCHAR NOT NULL,
    question_index  INTEGER NOT NULL,
    question        VARCHAR NOT NULL,  -- the player's question (personal data redacted)
    model_answer    VARCHAR NOT NULL,  -- the model's answer the player marked Wrong
    reliability     DOUBLE NOT NULL,   -- the player's latest estimate (gap_player_reliability)
    theta           DOUBLE NOT NULL    -- the threshold it had to exceed
);

CREATE TABLE IF NOT EXISTS gap_weekly_leaderboard (
    week        VARCHAR NOT NULL,   -- ISO week of the session start, e.g. 2026-W02
    player_id   VARCHAR NOT NULL,
    points      INTEGER NOT NULL,   -- 20 per (session, tainted image) where the player marked a planted error Wrong
    rank        INTEGER NOT NULL    -- 1 = most points that week; ties share the better rank
);

CREATE TABLE IF NOT EXISTS gap_image_rotation (
    image_id          VARCHAR NOT NULL,
    kept_questions    INTEGER NOT NULL,  -- adversarial questions kept on this untainted image
    move_to_tainted   BOOLEAN NOT NULL   -- more than 10 kept: the image should move to the tainted set
);

-- benchwright/gap/README.md#player-interaction-model: fitted parameters ('alpha' ... 'lam', 'ability:<player>', 'difficulty:<image>'),
-- cross-validation per fold, calibration of the out-of-fold predictions.
CREATE TABLE IF NOT EXISTS gap_interaction_parameters (
    parameter   VARCHAR NOT NULL,  -- 'alpha' | 'beta' | 'tau' | 'gamma' | 'lam' | 'ability:<player>' |
                                   -- 'difficulty:<image>'
    value       DOUBLE NOT NULL    -- its maximum-likelihood estimate
);

CREATE TABLE IF NOT EXISTS gap_interaction_cv (
    fold        INTEGER NOT NULL,  -- 0-based fold of the seeded k-fold split
    n           INTEGER NOT NULL,  -- tainted marks held out in the fold
    auc         DOUBLE,            -- ROC AUC of the held-out predictions; NULL when the fold has one class only
    log_loss    DOUBLE NOT NULL    -- mean log loss of the held-out predictions
);

CREATE TABLE IF NOT EXISTS gap_interaction_calibration (
    bin             INTEGER NOT NULL,  -- 0-based bin of the out-of-fold predicted probability (10 equal bins)
    bin_low         DOUBLE NOT NULL,   -- the bin's lower edge
    bin_high        DOUBLE NOT NULL,   -- the bin's upper edge
    n               INTEGER NOT NULL,  -- predictions in the bin
    mean_predicted  DOUBLE NOT NULL,   -- their mean predicted probability
    observed_rate   DOUBLE NOT NULL    -- share of them where the player's mark was right (S = 1)
);

-- GAP-VQA: kept pairs with their labelled answers, category and split.
CREATE TABLE IF NOT EXISTS gap_vqa_items (
    item_id         VARCHAR NOT NULL,
    image_id        VARCHAR NOT NULL,
    sha256          VARCHAR NOT NULL,   -- key into images
    question        VARCHAR NOT NULL,   -- the kept question
    answer          VARCHAR NOT NULL,   -- its labelled answer (from the labels file, else the image's ground truth; see
                                        -- answer_source)
    answer_source   VARCHAR NOT NULL,   -- 'labels_file' | 'ground_truth'
    category        VARCHAR NOT NULL,   -- the question's category
    split           VARCHAR NOT NULL    -- 'train' | 'val'
);

-- benchwright/gap/README.md#scoring: each candidate's answer to each val item and each judge's score in [0, 1].
CREATE TABLE IF NOT EXISTS gap_score_judgments (
    judge               VARCHAR NOT NULL,
    model               VARCHAR NOT NULL,
    item_id             VARCHAR NOT NULL,
    answer              VARCHAR,           -- the candidate's answer; NULL when the call failed
    answer_error        VARCHAR,           -- why the answering call failed; NULL when it succeeded
    answer_tokens_in    INTEGER,           -- prompt tokens of the answering call
    answer_tokens_out   INTEGER,           -- completion tokens of the answering call
    answer_latency_ms   DOUBLE,            -- latency of the answering call, ms
    answer_cost_usd     DOUBLE,            -- cost of the answering call, USD
    raw_text            VARCHAR,
    judge_error         VARCHAR,           -- why the judge call failed; NULL when it succeeded (or was not made)
    score               DOUBLE,            -- the judge's score in [0, 1]; NULL when it did not parse
    parse_ok            BOOLEAN NOT NULL,
    parse_problem       VARCHAR            -- why the score did not parse (no 'Score: <x>' line, outside [0, 1], an echo
                                           -- ...); NULL when it did
);

CREATE TABLE IF NOT EXISTS gap_scores (
    judge                       VARCHAR NOT NULL,
    model                       VARCHAR NOT NULL,
    gpt_score                   DOUBLE,           -- the GPT score: mean 0-1 judge score over the model's parsed val answers
    n                           INTEGER NOT NULL, -- parsed answers the score averages
    parse_failures              INTEGER NOT NULL,
    errors                      INTEGER NOT NULL, -- failed calls (the answer's or the judge's)
    answer_latency_ms           DOUBLE,           -- mean latency of the model's answering calls, ms
    answer_tokens_per_s         DOUBLE,           -- completion tokens per second of answering calls
    answer_cost_per_1k_tokens   DOUBLE            -- USD per 1,000 tokens (prompt + completion) of answering calls
);
-- The registry's display labels and the simulation flag, as in every other leaderboard table.
ALTER TABLE gap_scores ADD COLUMN IF NOT EXISTS model_display VARCHAR;
ALTER TABLE gap_scores ADD COLUMN IF NOT EXISTS judge_display VARCHAR;
ALTER TABLE gap_scores ADD COLUMN IF NOT EXISTS simulated BOOLEAN;

-- benchwright/gap/README.md#engagement: distributions (measure = sessions_per_player_week | images_per_session | tainted_accuracy).
CREATE TABLE IF NOT EXISTS gap_engagement (
    measure     VARCHAR NOT NULL,  -- sessions_per_player_week | images_per_session | tainted_accuracy
    bucket      DOUBLE NOT NULL,   -- the value counted (tainted_accuracy: a 10 % bucket's lower edge, 0-0.9)
    count       INTEGER NOT NULL   -- player-weeks, sessions or players with that value
);

-- benchwright/gap/README.md#the-game, generation side: seeded questions on tainted images, some with the instruction to be subtly wrong.
CREATE TABLE IF NOT EXISTS gap_tainted_answers (
    image_id          VARCHAR NOT NULL,
    question_index    INTEGER NOT NULL,
    question          VARCHAR NOT NULL,   -- the seeded question about the image
    true_answer       VARCHAR NOT NULL,   -- its answer from the image's ground truth
    instructed_wrong  BOOLEAN NOT NULL,   -- the model was told to answer subtly wrong
    model             VARCHAR NOT NULL,   -- registry slug
    answer            VARCHAR,            -- NULL when the call failed
    error             VARCHAR,
    matches_truth     BOOLEAN             -- exact match with the true answer (templated questions)
);

-- Which side is a simulation (assets.common.add_labels; the ledger: assets.ledger): model_simulated for the
-- `model` slug, judge_simulated for the `judge` slug, NULL where the table has no such column;
-- `simulated` = either.
ALTER TABLE gap_scores ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE gap_scores ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
