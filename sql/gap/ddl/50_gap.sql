-- GAP (benchwright/gap/README.md): game images, ingested game logs, reliability, selection, rewards, the player
-- interaction model and the GAP-VQA dataset. Image bytes live in `images`.

-- Game images with exact ground truth (JSON list of objects; '[]' for registered real images).
CREATE TABLE IF NOT EXISTS gap_images (
    image_id    VARCHAR NOT NULL,
    image_set   VARCHAR NOT NULL,     -- 'tainted' | 'untainted'
    sha256      VARCHAR NOT NULL,     -- key into images
    truth       VARCHAR NOT NULL
);

-- One row per log file content read (sha256): the very same bytes are not read twice. Marks are
-- de-duplicated by their own key, whatever file brings them.
CREATE TABLE IF NOT EXISTS gap_log_files (
    file_sha256      VARCHAR NOT NULL,
    file_name        VARCHAR NOT NULL,
    lines_loaded     INTEGER NOT NULL,
    lines_quarantined INTEGER NOT NULL,
    ingested_at      TIMESTAMP NOT NULL
);

-- One row per good log line: a question, the model's answer and the player's mark.
CREATE TABLE IF NOT EXISTS gap_marks (
    file_sha256      VARCHAR NOT NULL,
    line_no          INTEGER NOT NULL,
    session_id       VARCHAR NOT NULL,
    player_id        VARCHAR NOT NULL,
    session_start    TIMESTAMP NOT NULL,
    image_id         VARCHAR NOT NULL,
    tainted          BOOLEAN NOT NULL,
    image_order      INTEGER NOT NULL,
    time_limit_s     DOUBLE NOT NULL,
    question_index   INTEGER NOT NULL,
    question         VARCHAR NOT NULL,
    model_answer     VARCHAR NOT NULL,
    instructed_wrong BOOLEAN NOT NULL,
    player_mark      VARCHAR NOT NULL,   -- 'correct' | 'wrong'
    seconds_taken    DOUBLE NOT NULL,
    file_name        VARCHAR             -- where the mark was first read (with line_no)
);
-- A mark is stored once by its natural key (session_id, image_order, question_index).
ALTER TABLE gap_marks ADD COLUMN IF NOT EXISTS file_name VARCHAR;

-- Log lines that could not be used, with the reason (the rest of the file loads).
CREATE TABLE IF NOT EXISTS gap_log_quarantine (
    file_sha256  VARCHAR NOT NULL,
    file_name    VARCHAR NOT NULL,
    line_no      INTEGER NOT NULL,
    reason       VARCHAR NOT NULL,
    line         VARCHAR NOT NULL
);

-- The estimate of benchwright/gap/README.md#which-questions-are-kept after every tainted mark, in play order.
CREATE TABLE IF NOT EXISTS gap_reliability_history (
    player_id       VARCHAR NOT NULL,
    session_id      VARCHAR NOT NULL,
    image_id        VARCHAR NOT NULL,
    question_index  INTEGER NOT NULL,
    tainted_marks   INTEGER NOT NULL,
    reliability     DOUBLE NOT NULL
);

CREATE TABLE IF NOT EXISTS gap_player_reliability (
    player_id              VARCHAR NOT NULL,
    planted_total          INTEGER NOT NULL,
    planted_marked_wrong   INTEGER NOT NULL,
    honest_total           INTEGER NOT NULL,
    honest_marked_wrong    INTEGER NOT NULL,
    p_wrong_when_planted   DOUBLE NOT NULL,   -- Beta(1,1) posterior mean
    p_wrong_when_honest    DOUBLE NOT NULL,
    reliability            DOUBLE NOT NULL    -- P(M=0 | H=0, untainted)
);

-- Untainted questions kept as adversarial (player's estimate > θ).
CREATE TABLE IF NOT EXISTS gap_adversarial_questions (
    session_id      VARCHAR NOT NULL,
    player_id       VARCHAR NOT NULL,
    image_id        VARCHAR NOT NULL,
    question_index  INTEGER NOT NULL,
    question        VARCHAR NOT NULL,
    model_answer    VARCHAR NOT NULL,
    reliability     DOUBLE NOT NULL,
    theta           DOUBLE NOT NULL
);

CREATE TABLE IF NOT EXISTS gap_weekly_leaderboard (
    week        VARCHAR NOT NULL,   -- ISO week of the session start, e.g. 2026-W02
    player_id   VARCHAR NOT NULL,
    points      INTEGER NOT NULL,
    rank        INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS gap_image_rotation (
    image_id          VARCHAR NOT NULL,
    kept_questions    INTEGER NOT NULL,
    move_to_tainted   BOOLEAN NOT NULL
);

-- benchwright/gap/README.md#player-interaction-model: fitted parameters ('alpha' ... 'lam', 'ability:<player>', 'difficulty:<image>'),
-- cross-validation per fold, calibration of the out-of-fold predictions.
CREATE TABLE IF NOT EXISTS gap_interaction_parameters (
    parameter   VARCHAR NOT NULL,
    value       DOUBLE NOT NULL
);

CREATE TABLE IF NOT EXISTS gap_interaction_cv (
    fold        INTEGER NOT NULL,
    n           INTEGER NOT NULL,
    auc         DOUBLE,
    log_loss    DOUBLE NOT NULL
);

CREATE TABLE IF NOT EXISTS gap_interaction_calibration (
    bin             INTEGER NOT NULL,
    bin_low         DOUBLE NOT NULL,
    bin_high        DOUBLE NOT NULL,
    n               INTEGER NOT NULL,
    mean_predicted  DOUBLE NOT NULL,
    observed_rate   DOUBLE NOT NULL
);

-- GAP-VQA: kept pairs with their labelled answers, category and split.
CREATE TABLE IF NOT EXISTS gap_vqa_items (
    item_id         VARCHAR NOT NULL,
    image_id        VARCHAR NOT NULL,
    sha256          VARCHAR NOT NULL,
    question        VARCHAR NOT NULL,
    answer          VARCHAR NOT NULL,
    answer_source   VARCHAR NOT NULL,   -- 'labels_file' | 'ground_truth'
    category        VARCHAR NOT NULL,   -- the question's category
    split           VARCHAR NOT NULL    -- 'train' | 'val'
);

-- benchwright/gap/README.md#scoring: each candidate's answer to each val item and each judge's score in [0, 1].
CREATE TABLE IF NOT EXISTS gap_score_judgments (
    judge               VARCHAR NOT NULL,
    model               VARCHAR NOT NULL,
    item_id             VARCHAR NOT NULL,
    answer              VARCHAR,
    answer_error        VARCHAR,
    answer_tokens_in    INTEGER,
    answer_tokens_out   INTEGER,
    answer_latency_ms   DOUBLE,
    answer_cost_usd     DOUBLE,
    raw_text            VARCHAR,
    judge_error         VARCHAR,
    score               DOUBLE,
    parse_ok            BOOLEAN NOT NULL,
    parse_problem       VARCHAR
);

CREATE TABLE IF NOT EXISTS gap_scores (
    judge                       VARCHAR NOT NULL,
    model                       VARCHAR NOT NULL,
    gpt_score                   DOUBLE,           -- the GPT score: mean 0-1 judge score over the model's parsed val answers
    n                           INTEGER NOT NULL, -- parsed answers the score averages
    parse_failures              INTEGER NOT NULL,
    errors                      INTEGER NOT NULL, -- failed calls (the answer's or the judge's)
    answer_latency_ms           DOUBLE,
    answer_tokens_per_s         DOUBLE,
    answer_cost_per_1k_tokens   DOUBLE
);
-- The registry's display labels and the simulation flag, as in every other leaderboard table.
ALTER TABLE gap_scores ADD COLUMN IF NOT EXISTS model_display VARCHAR;
ALTER TABLE gap_scores ADD COLUMN IF NOT EXISTS judge_display VARCHAR;
ALTER TABLE gap_scores ADD COLUMN IF NOT EXISTS simulated BOOLEAN;

-- benchwright/gap/README.md#engagement: distributions (measure = sessions_per_player_week | images_per_session | tainted_accuracy).
CREATE TABLE IF NOT EXISTS gap_engagement (
    measure     VARCHAR NOT NULL,
    bucket      DOUBLE NOT NULL,
    count       INTEGER NOT NULL
);

-- benchwright/gap/README.md#the-game, generation side: seeded questions on tainted images, some with the instruction to be subtly wrong.
CREATE TABLE IF NOT EXISTS gap_tainted_answers (
    image_id          VARCHAR NOT NULL,
    question_index    INTEGER NOT NULL,
    question          VARCHAR NOT NULL,
    true_answer       VARCHAR NOT NULL,
    instructed_wrong  BOOLEAN NOT NULL,
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
