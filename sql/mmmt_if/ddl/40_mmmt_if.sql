-- MMMT-IF (benchwright/mmmt_if/README.md): chats, turns, instructions in force, programmatic scores, autorater
-- judgments, human ratings and the metric tables. Answers live in `generations` (benchmark 'mmmt_if',
-- item_id = turn_id, variant 'standard' | 'instructions_appended').

-- Source chats after filtering (no instructions yet); images are in `images`.
CREATE TABLE IF NOT EXISTS mmmt_if_source_chats (
    chat_id         VARCHAR NOT NULL,
    dataset         VARCHAR NOT NULL,
    topic           VARCHAR,
    questions       VARCHAR[] NOT NULL,
    image_hashes    VARCHAR[] NOT NULL,
    truncated       BOOLEAN NOT NULL      -- the source chat had more turns than the limit
);

-- The chat set: source chats with instructions inserted by the seeded process.
CREATE TABLE IF NOT EXISTS mmmt_if_chats (
    chat_id         VARCHAR NOT NULL,
    dataset         VARCHAR NOT NULL,
    topic           VARCHAR,
    n_turns         INTEGER NOT NULL,
    n_images        INTEGER NOT NULL,
    image_hashes    VARCHAR[] NOT NULL,   -- all go with the first user turn
    n_instructions  INTEGER NOT NULL,     -- instructions in force at the last turn
    seed            INTEGER NOT NULL,     -- of the insertion process
    truncated       BOOLEAN NOT NULL      -- the source chat had more turns than the limit
);

CREATE TABLE IF NOT EXISTS mmmt_if_turns (
    chat_id                VARCHAR NOT NULL,
    turn                   INTEGER NOT NULL,   -- 1-based
    turn_id                VARCHAR NOT NULL,   -- '<chat_id>#tNN'
    question               VARCHAR NOT NULL,
    inserted_instruction   VARCHAR,            -- instruction id added before this question, if any
    user_text              VARCHAR NOT NULL,   -- the user turn as sent (instruction + question)
    instructions_in_force  VARCHAR[] NOT NULL, -- every instruction given so far (they are global)
    n_instructions         INTEGER NOT NULL
);

-- One row per (turn, instruction in force).
CREATE TABLE IF NOT EXISTS mmmt_if_turn_instructions (
    chat_id         VARCHAR NOT NULL,
    turn            INTEGER NOT NULL,
    turn_id         VARCHAR NOT NULL,
    instruction_id  VARCHAR NOT NULL,
    category        VARCHAR NOT NULL,
    given_at_turn   INTEGER NOT NULL
);

-- Programmatic scoring, one row per response. pif is NULL for a failed call.
CREATE TABLE IF NOT EXISTS mmmt_if_turn_scores (
    model           VARCHAR NOT NULL,
    variant         VARCHAR NOT NULL,
    chat_id         VARCHAR NOT NULL,
    turn            INTEGER NOT NULL,
    turn_id         VARCHAR NOT NULL,
    sample_index    INTEGER NOT NULL,
    n_instructions  INTEGER NOT NULL,
    n_followed      INTEGER,
    pif             DOUBLE,
    error           VARCHAR
);

-- One row per (response, instruction in force): was it followed?
CREATE TABLE IF NOT EXISTS mmmt_if_instruction_results (
    model           VARCHAR NOT NULL,
    variant         VARCHAR NOT NULL,
    chat_id         VARCHAR NOT NULL,
    turn            INTEGER NOT NULL,
    turn_id         VARCHAR NOT NULL,
    sample_index    INTEGER NOT NULL,
    instruction_id  VARCHAR NOT NULL,
    category        VARCHAR NOT NULL,
    followed        BOOLEAN NOT NULL
);

-- Autorater (benchwright/mmmt_if/README.md#autorater-and-preferences), partition model × judge. Raw text, scores and parse_ok stay separate.
CREATE TABLE IF NOT EXISTS mmmt_if_autorater_judgments (
    model                             VARCHAR NOT NULL,
    judge                             VARCHAR NOT NULL,
    variant                           VARCHAR NOT NULL,
    chat_id                           VARCHAR NOT NULL,
    turn                              INTEGER NOT NULL,
    turn_id                           VARCHAR NOT NULL,
    sample_index                      INTEGER NOT NULL,
    raw_text                          VARCHAR,
    creativity                        DOUBLE,   -- 1-10, NULL unless parse_ok
    richness                          DOUBLE,
    visual_perception                 DOUBLE,
    logical_coherence                 DOUBLE,
    answer_accuracy                   DOUBLE,
    image_relationship_understanding  DOUBLE,
    instruction_following             DOUBLE,
    overall_quality                   DOUBLE,
    parse_ok                          BOOLEAN NOT NULL,
    parse_problem                     VARCHAR,  -- why the output did not parse (missing keys ...)
    error                             VARCHAR,  -- the call failed: not a judgment, not a parse failure
    request_key                       VARCHAR,
    simulated                         BOOLEAN NOT NULL,
    source                            VARCHAR NOT NULL
);

-- Human ratings from the CSV drop folder (see benchwright/mmmt_if/loader.py).
CREATE TABLE IF NOT EXISTS mmmt_if_human_ratings (
    model         VARCHAR NOT NULL,
    chat_id       VARCHAR NOT NULL,
    turn          INTEGER NOT NULL,
    variant       VARCHAR NOT NULL,
    sample_index  INTEGER NOT NULL,
    rating        DOUBLE NOT NULL,   -- instruction following, 1-10
    rater         VARCHAR,
    source_file   VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_human_preferences (
    chat_id       VARCHAR NOT NULL,
    turn          INTEGER NOT NULL,
    variant       VARCHAR NOT NULL,
    sample_index  INTEGER NOT NULL,
    model_a       VARCHAR NOT NULL,
    model_b       VARCHAR NOT NULL,
    preferred     VARCHAR NOT NULL,  -- 'a' | 'b' | 'tie'
    rater         VARCHAR,
    source_file   VARCHAR NOT NULL
);

-- --- metrics (every table but the uplift has a `variant` column) ---------------------------------

CREATE TABLE IF NOT EXISTS mmmt_if_summary (
    model              VARCHAR NOT NULL,
    variant            VARCHAR NOT NULL,
    contexts           INTEGER NOT NULL,   -- (chat, turn) answered at least once
    responses          INTEGER NOT NULL,
    failed             INTEGER NOT NULL,   -- failed calls: left out, never scored 0
    pif                DOUBLE,             -- corpus PIF: mean over contexts of the samples' mean
    pif_lower          DOUBLE,             -- 95 % bounds p ± 1.96·sqrt(p(1−p)/n), n = contexts, clipped to [0, 1]
    pif_upper          DOUBLE,             -- upper 95 % bound (see pif_lower)
    pif_iqr_n          DOUBLE,             -- PIF-IQR-N: mean over complete contexts of the IQR of the N sample PIFs
    complete_contexts  INTEGER NOT NULL,   -- contexts with all N samples (PIF-N-K, PIF-IQR-N)
    pif_n_n            DOUBLE,             -- PIF-N-N: share of complete contexts where all N samples have PIF 1
    n_samples          INTEGER NOT NULL,   -- N: samples per context
    model_display      VARCHAR,
    simulated          BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_pif_by_turn (
    model VARCHAR NOT NULL, variant VARCHAR NOT NULL, turn INTEGER NOT NULL,
    n INTEGER NOT NULL, pif DOUBLE, pif_lower DOUBLE, pif_upper DOUBLE,
    model_display VARCHAR, simulated BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_pif_by_count (
    model VARCHAR NOT NULL, variant VARCHAR NOT NULL, n_instructions INTEGER NOT NULL,
    n INTEGER NOT NULL, pif DOUBLE, pif_lower DOUBLE, pif_upper DOUBLE,
    model_display VARCHAR, simulated BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_pif_by_instruction (
    model VARCHAR NOT NULL, variant VARCHAR NOT NULL, instruction_id VARCHAR NOT NULL, category VARCHAR NOT NULL,
    n INTEGER NOT NULL, pif DOUBLE, pif_lower DOUBLE, pif_upper DOUBLE,
    model_display VARCHAR, simulated BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_pif_n_k (
    model VARCHAR NOT NULL, variant VARCHAR NOT NULL, n_samples INTEGER NOT NULL, k INTEGER NOT NULL,
    contexts INTEGER NOT NULL, pif_n_k DOUBLE,
    model_display VARCHAR, simulated BOOLEAN NOT NULL
);

-- The instructions-appended ablation against the standard chat, per model.
CREATE TABLE IF NOT EXISTS mmmt_if_uplift (
    model VARCHAR NOT NULL, pif_standard DOUBLE, pif_appended DOUBLE, uplift DOUBLE,
    pif_n_n_standard DOUBLE, pif_n_n_appended DOUBLE, uplift_n_n DOUBLE,
    pairs INTEGER NOT NULL, p_appended_greater DOUBLE,   -- one-sided Wilcoxon on paired context PIFs
    model_display VARCHAR, simulated BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_ecdf (
    model VARCHAR NOT NULL, variant VARCHAR NOT NULL, turn INTEGER NOT NULL,
    pif_value DOUBLE NOT NULL, cdf DOUBLE NOT NULL, n INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_dominance (
    variant VARCHAR NOT NULL, model_a VARCHAR NOT NULL, model_b VARCHAR NOT NULL, turns INTEGER NOT NULL,
    turns_a_dominates INTEGER NOT NULL, turns_b_dominates INTEGER NOT NULL,
    a_dominates_every_turn BOOLEAN NOT NULL, b_dominates_every_turn BOOLEAN NOT NULL, verdict VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_wilcoxon (
    variant VARCHAR NOT NULL, model_a VARCHAR NOT NULL, model_b VARCHAR NOT NULL,
    pairs INTEGER NOT NULL, nonzero_pairs INTEGER NOT NULL, mean_difference DOUBLE,
    p_a_greater DOUBLE, p_b_greater DOUBLE,  -- one-sided: H1 model_a > model_b, and the reverse
    method VARCHAR  -- the test scipy's method="auto" runs: exact, asymptotic or all sign flips; NULL: no pair differs
);
ALTER TABLE mmmt_if_wilcoxon ADD COLUMN IF NOT EXISTS method VARCHAR;

CREATE TABLE IF NOT EXISTS mmmt_if_preference_scores (
    judge VARCHAR NOT NULL, model VARCHAR NOT NULL, variant VARCHAR NOT NULL, chat_id VARCHAR NOT NULL,
    turn INTEGER NOT NULL, sample_index INTEGER NOT NULL, pif DOUBLE, criteria_mean DOUBLE,
    preference DOUBLE   -- (8 criteria + 20·PIF) / 28; NULL when the judgment failed or did not parse
);

CREATE TABLE IF NOT EXISTS mmmt_if_preferences (
    judge VARCHAR NOT NULL, variant VARCHAR NOT NULL, model_a VARCHAR NOT NULL, model_b VARCHAR NOT NULL,
    turns INTEGER NOT NULL, wins INTEGER NOT NULL, ties INTEGER NOT NULL, losses INTEGER NOT NULL,
    win_rate DOUBLE,      -- of model_a, a tie counting half
    unjudged INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_ratings (
    judge VARCHAR NOT NULL, variant VARCHAR NOT NULL, model VARCHAR NOT NULL,
    rating DOUBLE NOT NULL, rating_lower DOUBLE, rating_upper DOUBLE,   -- Elo scale, mean 1000
    judgments INTEGER NOT NULL, wins INTEGER NOT NULL, ties INTEGER NOT NULL, losses INTEGER NOT NULL,
    at_bound BOOLEAN NOT NULL, model_display VARCHAR, simulated BOOLEAN NOT NULL
);
-- The rank by upper bound (benchwright.ratings.upper_bound_ranks: 1 + the models clearly above; it replaced the
-- overlap tiers) and the bootstrap that gave the bounds (rounds over contexts, seed).
ALTER TABLE mmmt_if_ratings ADD COLUMN IF NOT EXISTS rank INTEGER;
ALTER TABLE mmmt_if_ratings DROP COLUMN IF EXISTS tier;
ALTER TABLE mmmt_if_ratings ADD COLUMN IF NOT EXISTS rounds INTEGER;
ALTER TABLE mmmt_if_ratings ADD COLUMN IF NOT EXISTS seed BIGINT;

CREATE TABLE IF NOT EXISTS mmmt_if_self_preference (
    judge VARCHAR NOT NULL, model VARCHAR NOT NULL, judge_family VARCHAR NOT NULL, model_family VARCHAR NOT NULL,
    same_family BOOLEAN NOT NULL, judgments INTEGER NOT NULL, mean_score DOUBLE,
    mean_score_other_judges DOUBLE, difference DOUBLE
);

CREATE TABLE IF NOT EXISTS mmmt_if_human_alignment (
    measure VARCHAR NOT NULL,   -- 'pearson_pif_human_rating' | 'human_preference_agrees_with_pif'
    scope VARCHAR NOT NULL,     -- 'overall' | 'model:<slug>'
    variant VARCHAR NOT NULL, n INTEGER NOT NULL, value DOUBLE, p_value DOUBLE
);

-- The MMMT-IF public release (benchwright.importers.mmmt_if_release): one row per conversation, turn and
-- model, as published (one response each, scored by the release's autorater), and its pairwise preference
-- columns. source = 'mmmt_if_release:<file stem>'.
CREATE TABLE IF NOT EXISTS mmmt_if_release_responses (
    source                            VARCHAR NOT NULL,
    chat_id                           VARCHAR NOT NULL,
    turn                              INTEGER NOT NULL,
    model                             VARCHAR NOT NULL,
    line                              INTEGER NOT NULL,   -- where the record starts in the file
    n_instructions                    INTEGER NOT NULL,
    instructions                      VARCHAR[] NOT NULL, -- in force at this turn (cumulative)
    prompt                            VARCHAR NOT NULL,   -- unwrapped: line breaks inside the cell read as spaces
    topic                             VARCHAR NOT NULL,   -- stray apostrophes at either end dropped
    topic_raw                         VARCHAR NOT NULL,
    capability                        VARCHAR NOT NULL,
    creativity                        DOUBLE NOT NULL,
    richness                          DOUBLE NOT NULL,
    visual_perception                 DOUBLE NOT NULL,
    logical_coherence                 DOUBLE NOT NULL,
    answer_accuracy                   DOUBLE NOT NULL,
    image_relationship_understanding  DOUBLE NOT NULL,
    instruction_following             DOUBLE NOT NULL,
    overall_quality                   DOUBLE NOT NULL,   -- the release's 'Overall score'
    pif                               DOUBLE NOT NULL,
    pif_weight                        DOUBLE NOT NULL    -- the file's weight of PIF in the preference score
);

CREATE TABLE IF NOT EXISTS mmmt_if_release_human_preferences (
    source     VARCHAR NOT NULL,
    chat_id    VARCHAR NOT NULL,
    turn       INTEGER NOT NULL,
    model_a    VARCHAR NOT NULL,   -- the model a preference of 1 favours
    model_b    VARCHAR NOT NULL,   -- the model a preference of 0 favours
    value      DOUBLE NOT NULL,    -- 1, 0 or 0.5
    preferred  VARCHAR NOT NULL,   -- 'a' | 'b' | 'tie' (0.5)
    line       INTEGER NOT NULL
);

-- Our metrics on the release's rows (benchwright.mmmt_if.release).
CREATE TABLE IF NOT EXISTS mmmt_if_release_pif_by_turn (
    source VARCHAR NOT NULL, model VARCHAR NOT NULL, turn INTEGER NOT NULL, n INTEGER NOT NULL,
    pif DOUBLE, pif_lower DOUBLE, pif_upper DOUBLE
);

CREATE TABLE IF NOT EXISTS mmmt_if_release_dominance (
    source VARCHAR NOT NULL, model_a VARCHAR NOT NULL, model_b VARCHAR NOT NULL, turns INTEGER NOT NULL,
    turns_a_dominates INTEGER NOT NULL, turns_b_dominates INTEGER NOT NULL,
    a_dominates_every_turn BOOLEAN NOT NULL, b_dominates_every_turn BOOLEAN NOT NULL, verdict VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_release_preference_scores (
    source VARCHAR NOT NULL, judge VARCHAR NOT NULL, model VARCHAR NOT NULL, chat_id VARCHAR NOT NULL,
    turn INTEGER NOT NULL,
    preference DOUBLE NOT NULL   -- (8 criteria + w*PIF) / (8 + w), w = the file's PIF weight (20)
);

CREATE TABLE IF NOT EXISTS mmmt_if_release_preferences (
    source VARCHAR NOT NULL, model_a VARCHAR NOT NULL, model_b VARCHAR NOT NULL, turns INTEGER NOT NULL,
    wins INTEGER NOT NULL, ties INTEGER NOT NULL, losses INTEGER NOT NULL, win_rate DOUBLE, unjudged INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_release_ratings (
    source VARCHAR NOT NULL, model VARCHAR NOT NULL, rating DOUBLE NOT NULL, rating_lower DOUBLE,
    rating_upper DOUBLE, judgments INTEGER NOT NULL, wins INTEGER NOT NULL, ties INTEGER NOT NULL,
    losses INTEGER NOT NULL, at_bound BOOLEAN NOT NULL
);
ALTER TABLE mmmt_if_release_ratings ADD COLUMN IF NOT EXISTS rank INTEGER;
ALTER TABLE mmmt_if_release_ratings DROP COLUMN IF EXISTS tier;
ALTER TABLE mmmt_if_release_ratings ADD COLUMN IF NOT EXISTS rounds INTEGER;
ALTER TABLE mmmt_if_release_ratings ADD COLUMN IF NOT EXISTS seed BIGINT;

-- Preference-score outcomes vs the file's pairwise preferences, per pair of models and over all ('all').
CREATE TABLE IF NOT EXISTS mmmt_if_release_agreement (
    source                  VARCHAR NOT NULL,
    model_a                 VARCHAR NOT NULL,
    model_b                 VARCHAR NOT NULL,
    n                       INTEGER NOT NULL,
    human_ties              INTEGER NOT NULL,
    agreement               DOUBLE,   -- ties must meet ties
    n_without_ties          INTEGER NOT NULL,
    agreement_without_ties  DOUBLE,
    kappa                   DOUBLE,   -- Cohen's, over first / second / tie
    human_agrees_with_pif   DOUBLE,   -- 'all' row only: share of non-tied choices that follow the PIF order
    human_pif_pairs         INTEGER
);

-- Which side is a simulation (assets.common.add_labels; the ledger: assets.ledger): model_simulated for the
-- `model` slug, judge_simulated for the `judge` slug, NULL where the table has no such column;
-- `simulated` = either.
ALTER TABLE mmmt_if_summary ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE mmmt_if_summary ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE mmmt_if_pif_by_turn ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE mmmt_if_pif_by_turn ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE mmmt_if_pif_by_count ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE mmmt_if_pif_by_count ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE mmmt_if_pif_by_instruction ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE mmmt_if_pif_by_instruction ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE mmmt_if_pif_n_k ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE mmmt_if_pif_n_k ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE mmmt_if_uplift ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE mmmt_if_uplift ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE mmmt_if_ratings ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE mmmt_if_ratings ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;

-- The answer and verdict tables carry the same flags (assets.common.flagged_rows, SIMULATION_SIDES): model_simulated
-- for the model that answered (a reference's baseline, a description's describer), judge_simulated for the
-- judge (NULL in an answer table: no judge); `simulated` = either. A warehouse made before gains the columns
-- NULL for its old rows, filled when their partition is written again.
ALTER TABLE mmmt_if_autorater_judgments ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE mmmt_if_autorater_judgments ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
