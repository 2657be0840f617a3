-- MMMT-IF (benchwright/mmmt_if/README.md): chats, turns, instructions in force, programmatic scores, autorater
-- judgments, human ratings and the metric tables. Answers live in `generations` (benchmark 'mmmt_if',
-- item_id = turn_id, variant 'standard' | 'instructions_appended').

-- Shared columns: these names mean this in every table and view (sql/core/ddl/00_core.sql has the others).
-- chat_id: the chat's id (a source chat's; in the release, its conversation's).
-- turn: the turn of the chat, 1-based (the user's question number).
-- turn_id: '<chat_id>#tNN', the turn's item_id in `generations`.
-- instruction_id: an instruction's id (benchwright.mmmt_if.instruction_following), e.g. length_short.
-- n_instructions: instructions in force at the turn (given at it or before: they are global).

-- Source chats after filtering (no instructions yet); images are in `images`.
CREATE TABLE IF NOT EXISTS mmmt_if_source_chats (
    chat_id         VARCHAR NOT NULL,     -- the chat's id in its source file
    dataset         VARCHAR NOT NULL,     -- file name the chat was read from
    topic           VARCHAR,              -- the chat's topic as its file gives it; NULL or '' when it gives none
    questions       VARCHAR[] NOT NULL,   -- the user's questions in turn order (turns past the limit cut off)
    image_hashes    VARCHAR[] NOT NULL,   -- sha256 keys into images, in the chat's order
    truncated       BOOLEAN NOT NULL      -- the source chat had more turns than the limit
);

-- The chat set: source chats with instructions inserted by the seeded process.
CREATE TABLE IF NOT EXISTS mmmt_if_chats (
    chat_id         VARCHAR NOT NULL,
    dataset         VARCHAR NOT NULL,     -- file name the chat was read from
    topic           VARCHAR,              -- the chat's topic as its file gives it; NULL or '' when it gives none
    n_turns         INTEGER NOT NULL,     -- user turns (questions) of the chat
    n_images        INTEGER NOT NULL,     -- images of the chat (at most 5)
    image_hashes    VARCHAR[] NOT NULL,   -- all go with the first user turn
    n_instructions  INTEGER NOT NULL,     -- instructions in force at the last turn
    seed            INTEGER NOT NULL,     -- of the insertion process
    truncated       BOOLEAN NOT NULL      -- the source chat had more turns than the limit
);

CREATE TABLE IF NOT EXISTS mmmt_if_turns (
    chat_id                VARCHAR NOT NULL,
    turn                   INTEGER NOT NULL,   -- 1-based
    turn_id                VARCHAR NOT NULL,   -- '<chat_id>#tNN'
    question               VARCHAR NOT NULL,   -- the source question of this turn, without the inserted instruction
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
    category        VARCHAR NOT NULL,  -- the instruction's category: response_length | sentence_start | sentence_end |
                                       -- favourite_word | sentence_length | number
    given_at_turn   INTEGER NOT NULL   -- the turn the instruction was inserted at (<= turn)
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
    n_followed      INTEGER,           -- instructions in force the response followed; NULL for a failed call
    pif             DOUBLE,            -- n_followed / n_instructions, 0-1 (1 when no instruction is in force); NULL for
                                       -- a failed call
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
    category        VARCHAR NOT NULL,  -- the instruction's category (response_length, sentence_start ...)
    followed        BOOLEAN NOT NULL   -- the programmatic checker found the instruction followed
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
    richness                          DOUBLE,   -- 1-10, NULL unless parse_ok
    visual_perception                 DOUBLE,   -- 1-10, NULL unless parse_ok
    logical_coherence                 DOUBLE,   -- 1-10, NULL unless parse_ok
    answer_accuracy                   DOUBLE,   -- 1-10, NULL unless parse_ok
    image_relationship_understanding  DOUBLE,   -- 1-10, NULL unless parse_ok
    instruction_following             DOUBLE,   -- 1-10, NULL unless parse_ok; the autorater's view (PIF is programmatic)
    overall_quality                   DOUBLE,   -- 1-10, NULL unless parse_ok
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
    rater         VARCHAR,           -- who rated (personal data replaced by a stable pseudonym person-<hex>); NULL when
                                     -- the file does not say
    source_file   VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_human_preferences (
    chat_id       VARCHAR NOT NULL,
    turn          INTEGER NOT NULL,
    variant       VARCHAR NOT NULL,
    sample_index  INTEGER NOT NULL,
    model_a       VARCHAR NOT NULL,  -- the model whose response 'a' is
    model_b       VARCHAR NOT NULL,  -- the model whose response 'b' is
    preferred     VARCHAR NOT NULL,  -- 'a' | 'b' | 'tie'
    rater         VARCHAR,           -- who chose (personal data replaced by a stable pseudonym person-<hex>); NULL when
                                     -- the file does not say
    source_file   VARCHAR NOT NULL
);

-- --- metrics (every table but the uplift has a `variant` column) ---------------------------------

CREATE TABLE IF NOT EXISTS mmmt_if_summary (
    model              VARCHAR NOT NULL,
    variant            VARCHAR NOT NULL,
    contexts           INTEGER NOT NULL,   -- (chat, turn) answered at least once
    responses          INTEGER NOT NULL,   -- responses scored (failed calls not counted)
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
    model                    VARCHAR NOT NULL,
    variant                  VARCHAR NOT NULL,
    turn                     INTEGER NOT NULL,
    n                        INTEGER NOT NULL,  -- contexts (chats reaching this turn) with a scored response
    pif                      DOUBLE,            -- mean over those contexts of the samples' mean PIF
    pif_lower                DOUBLE,            -- 95 % bounds p ± 1.96·sqrt(p(1−p)/n), clipped to [0, 1]
    pif_upper                DOUBLE,            -- upper 95 % bound (see pif_lower)
    model_display            VARCHAR,
    simulated                BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_pif_by_count (
    model                    VARCHAR NOT NULL,
    variant                  VARCHAR NOT NULL,
    n_instructions           INTEGER NOT NULL,  -- instructions in force (the grouping)
    n                        INTEGER NOT NULL,  -- contexts with that many instructions in force and a scored response
    pif                      DOUBLE,            -- mean over those contexts of the samples' mean PIF
    pif_lower                DOUBLE,            -- 95 % bounds p ± 1.96·sqrt(p(1−p)/n), clipped to [0, 1]
    pif_upper                DOUBLE,            -- upper 95 % bound (see pif_lower)
    model_display            VARCHAR,
    simulated                BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_pif_by_instruction (
    model                    VARCHAR NOT NULL,
    variant                  VARCHAR NOT NULL,
    instruction_id           VARCHAR NOT NULL,
    category                 VARCHAR NOT NULL,  -- the instruction's category
    n                        INTEGER NOT NULL,  -- contexts where the instruction was in force and a response was scored
    pif                      DOUBLE,            -- per-instruction PIF: mean over those contexts of the share of samples
                                                -- that followed it
    pif_lower                DOUBLE,            -- 95 % bounds p ± 1.96·sqrt(p(1−p)/n), clipped to [0, 1]
    pif_upper                DOUBLE,            -- upper 95 % bound (see pif_lower)
    model_display            VARCHAR,
    simulated                BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_pif_n_k (
    model                    VARCHAR NOT NULL,
    variant                  VARCHAR NOT NULL,
    n_samples                INTEGER NOT NULL,  -- N: samples per context (the most any context of the model and variant
                                                -- has)
    k                        INTEGER NOT NULL,  -- K = 1..N
    contexts                 INTEGER NOT NULL,  -- complete contexts: all N samples answered and scored
    pif_n_k                  DOUBLE,            -- PIF-N-K: share of complete contexts with at least K of the N samples
                                                -- at PIF 1; NULL without one
    model_display            VARCHAR,
    simulated                BOOLEAN NOT NULL
);

-- The instructions-appended ablation against the standard chat, per model.
CREATE TABLE IF NOT EXISTS mmmt_if_uplift (
    model                    VARCHAR NOT NULL,
    pif_standard             DOUBLE,                      -- corpus PIF of the standard variant (mmmt_if_summary.pif)
    pif_appended             DOUBLE,                      -- corpus PIF with the instructions appended
    uplift                   DOUBLE,                      -- pif_appended − pif_standard
    pif_n_n_standard         DOUBLE,                      -- PIF-N-N of the standard variant
    pif_n_n_appended         DOUBLE,                      -- PIF-N-N with the instructions appended
    uplift_n_n               DOUBLE,                      -- pif_n_n_appended − pif_n_n_standard
    pairs                    INTEGER NOT NULL,            -- contexts (chat, turn) with a PIF in both variants
    p_appended_greater       DOUBLE,                      -- one-sided Wilcoxon on paired context PIFs: p for appended >
                                                          -- standard; NULL without pairs
    model_display            VARCHAR,
    simulated                BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS mmmt_if_ecdf (
    model                    VARCHAR NOT NULL,
    variant                  VARCHAR NOT NULL,
    turn                     INTEGER NOT NULL,
    pif_value                DOUBLE NOT NULL,   -- a distinct response PIF of the model at this turn
    cdf                      DOUBLE NOT NULL,   -- share of its scored responses at this turn with PIF <= pif_value
    n                        INTEGER NOT NULL   -- scored responses at this turn
);

CREATE TABLE IF NOT EXISTS mmmt_if_dominance (
    variant                  VARCHAR NOT NULL,
    model_a                  VARCHAR NOT NULL,  -- registry slug of the pair's first model (pairs in slug order)
    model_b                  VARCHAR NOT NULL,  -- registry slug of the pair's second model
    turns                    INTEGER NOT NULL,  -- turns both models have scored responses at
    turns_a_dominates        INTEGER NOT NULL,  -- turns where model_a's PIF distribution weakly first-order dominates
                                                -- model_b's
    turns_b_dominates        INTEGER NOT NULL,  -- turns where model_b's weakly dominates model_a's
    a_dominates_every_turn   BOOLEAN NOT NULL,  -- model_a dominates at every common turn (false without one)
    b_dominates_every_turn   BOOLEAN NOT NULL,  -- model_b dominates at every common turn (false without one)
    verdict                  VARCHAR NOT NULL   -- '<model> dominates' | 'equal' (both ways at every turn) | 'no
                                                -- dominance'
);

CREATE TABLE IF NOT EXISTS mmmt_if_wilcoxon (
    variant                  VARCHAR NOT NULL,
    model_a                  VARCHAR NOT NULL,            -- registry slug of the pair's first model (pairs in slug
                                                          -- order)
    model_b                  VARCHAR NOT NULL,            -- registry slug of the pair's second model
    pairs                    INTEGER NOT NULL,            -- contexts (chat, turn) both models have a PIF for
    nonzero_pairs            INTEGER NOT NULL,            -- pairs whose PIFs differ (what the test ranks)
    mean_difference          DOUBLE,                      -- mean of model_a's context PIF − model_b's over the pairs
    p_a_greater              DOUBLE,                      -- one-sided: H1 model_a > model_b, and the reverse
    p_b_greater              DOUBLE,                      -- one-sided p for model_b > model_a
    method                   VARCHAR                      -- the test scipy's method="auto" runs: exact, asymptotic or
                                                          -- all sign flips; NULL: no pair differs
);
ALTER TABLE mmmt_if_wilcoxon ADD COLUMN IF NOT EXISTS method VARCHAR;

CREATE TABLE IF NOT EXISTS mmmt_if_preference_scores (
    judge                    VARCHAR NOT NULL,
    model                    VARCHAR NOT NULL,
    variant                  VARCHAR NOT NULL,
    chat_id                  VARCHAR NOT NULL,
    turn                     INTEGER NOT NULL,
    sample_index             INTEGER NOT NULL,
    pif                      DOUBLE,                      -- the response's PIF
    criteria_mean            DOUBLE,                      -- mean of the autorater's 8 criteria; NULL when the judgment
                                                          -- failed or did not parse
    preference               DOUBLE                       -- (8 criteria + 20·PIF) / 28; NULL when the judgment failed or did not parse
);

CREATE TABLE IF NOT EXISTS mmmt_if_preferences (
    judge                    VARCHAR NOT NULL,
    variant                  VARCHAR NOT NULL,
    model_a                  VARCHAR NOT NULL,            -- registry slug of the pair's first model (pairs in slug
                                                          -- order)
    model_b                  VARCHAR NOT NULL,            -- registry slug of the pair's second model
    turns                    INTEGER NOT NULL,            -- contexts (chat, turn) where both models' preference scores
                                                          -- exist
    wins                     INTEGER NOT NULL,            -- contexts where model_a's preference score is higher
    ties                     INTEGER NOT NULL,            -- contexts where the two scores are equal
    losses                   INTEGER NOT NULL,            -- contexts where model_b's preference score is higher
    win_rate                 DOUBLE,                      -- of model_a, a tie counting half
    unjudged                 INTEGER NOT NULL             -- contexts where a side has no preference score
);

CREATE TABLE IF NOT EXISTS mmmt_if_ratings (
    judge                    VARCHAR NOT NULL,
    variant                  VARCHAR NOT NULL,
    model                    VARCHAR NOT NULL,
    rating                   DOUBLE NOT NULL,             -- Elo scale, mean 1000
    rating_lower             DOUBLE,                      -- bootstrap 2.5 % quantile of the rating (rounds resample
                                                          -- contexts); NULL without bootstrap
    rating_upper             DOUBLE,                      -- bootstrap 97.5 % quantile of the rating
    judgments                INTEGER NOT NULL,            -- pairwise outcomes involving the model
    wins                     INTEGER NOT NULL,            -- outcomes the model won
    ties                     INTEGER NOT NULL,            -- outcomes that were a tie
    losses                   INTEGER NOT NULL,            -- outcomes the model lost
    at_bound                 BOOLEAN NOT NULL,            -- won or lost everything: the rating is a bound, not an
                                                          -- estimate
    model_display            VARCHAR,
    simulated                BOOLEAN NOT NULL
);
-- The rank by upper bound (benchwright.ratings.upper_bound_ranks: 1 + the models clearly above; it replaced the
-- overlap tiers) and the bootstrap that gave the bounds (rounds over contexts, seed).
ALTER TABLE mmmt_if_ratings ADD COLUMN IF NOT EXISTS rank INTEGER;
ALTER TABLE mmmt_if_ratings DROP COLUMN IF EXISTS tier;
ALTER TABLE mmmt_if_ratings ADD COLUMN IF NOT EXISTS rounds INTEGER;   -- bootstrap rounds behind the bounds
ALTER TABLE mmmt_if_ratings ADD COLUMN IF NOT EXISTS seed BIGINT;   -- of the bootstrap: the same seed, the same bounds

CREATE TABLE IF NOT EXISTS mmmt_if_self_preference (
    judge                    VARCHAR NOT NULL,
    model                    VARCHAR NOT NULL,
    judge_family             VARCHAR NOT NULL,  -- the judge's model family (openai, anthropic, google ..., a
                                                -- simulation's sim:<name>, else its provider prefix)
    model_family             VARCHAR NOT NULL,  -- the model's family, named as judge_family
    same_family              BOOLEAN NOT NULL,  -- judge_family = model_family
    judgments                INTEGER NOT NULL,  -- parsed judgments of the model by this judge
    mean_score               DOUBLE,            -- mean of the 8 criteria this judge gave the model
    mean_score_other_judges  DOUBLE,            -- the same from every other judge; NULL when there is none
    difference               DOUBLE             -- mean_score − mean_score_other_judges: above 0, this judge favours the
                                                -- model
);

CREATE TABLE IF NOT EXISTS mmmt_if_human_alignment (
    measure                  VARCHAR NOT NULL,            -- 'pearson_pif_human_rating' | 'human_preference_agrees_with_pif'
    scope                    VARCHAR NOT NULL,            -- 'overall' | 'model:<slug>'
    variant                  VARCHAR NOT NULL,
    n                        INTEGER NOT NULL,            -- matched pairs: ratings with a scored response, or non-tied
                                                          -- preferences whose PIFs differ
    value                    DOUBLE,                      -- Pearson r (pearson_pif_human_rating) or the share of
                                                          -- preferences that follow the PIF order
    p_value                  DOUBLE                       -- two-sided p of the Pearson r; NULL for the preference share
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
    n_instructions                    INTEGER NOT NULL,   -- instructions in force at this turn, as the release counts
                                                          -- them
    instructions                      VARCHAR[] NOT NULL, -- in force at this turn (cumulative)
    prompt                            VARCHAR NOT NULL,   -- unwrapped: line breaks inside the cell read as spaces
    topic                             VARCHAR NOT NULL,   -- stray apostrophes at either end dropped
    topic_raw                         VARCHAR NOT NULL,   -- the question topic as written
    capability                        VARCHAR NOT NULL,   -- the release's 'LLM capability tested' label
    creativity                        DOUBLE NOT NULL,    -- the release autorater's score, as published
    richness                          DOUBLE NOT NULL,    -- the release autorater's score, as published
    visual_perception                 DOUBLE NOT NULL,    -- the release autorater's score, as published
    logical_coherence                 DOUBLE NOT NULL,    -- the release autorater's score, as published
    answer_accuracy                   DOUBLE NOT NULL,    -- the release autorater's score, as published
    image_relationship_understanding  DOUBLE NOT NULL,    -- the release autorater's score, as published
    instruction_following             DOUBLE NOT NULL,    -- the release autorater's score, as published
    overall_quality                   DOUBLE NOT NULL,   -- the release's 'Overall score'
    pif                               DOUBLE NOT NULL,    -- the release's Programmatic Instruction Following score of
                                                          -- the response
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
    line       INTEGER NOT NULL    -- where the record starts in the file
);

-- Our metrics on the release's rows (benchwright.mmmt_if.release).
CREATE TABLE IF NOT EXISTS mmmt_if_release_pif_by_turn (
    source                   VARCHAR NOT NULL,
    model                    VARCHAR NOT NULL,
    turn                     INTEGER NOT NULL,
    n                        INTEGER NOT NULL,  -- conversations with a response of the model at this turn
    pif                      DOUBLE,            -- mean PIF of those responses
    pif_lower                DOUBLE,            -- 95 % bounds p ± 1.96·sqrt(p(1−p)/n), clipped to [0, 1]
    pif_upper                DOUBLE             -- upper 95 % bound (see pif_lower)
);

CREATE TABLE IF NOT EXISTS mmmt_if_release_dominance (
    source                   VARCHAR NOT NULL,
    model_a                  VARCHAR NOT NULL,  -- the pair's first model (pairs in name order)
    model_b                  VARCHAR NOT NULL,  -- the pair's second model
    turns                    INTEGER NOT NULL,  -- turns both models have responses at
    turns_a_dominates        INTEGER NOT NULL,  -- turns where model_a's PIF distribution weakly first-order dominates
                                                -- model_b's
    turns_b_dominates        INTEGER NOT NULL,  -- turns where model_b's weakly dominates model_a's
    a_dominates_every_turn   BOOLEAN NOT NULL,  -- model_a dominates at every common turn (false without one)
    b_dominates_every_turn   BOOLEAN NOT NULL,  -- model_b dominates at every common turn (false without one)
    verdict                  VARCHAR NOT NULL   -- '<model> dominates' | 'equal' (both ways at every turn) | 'no
                                                -- dominance'
);

CREATE TABLE IF NOT EXISTS mmmt_if_release_preference_scores (
    source                   VARCHAR NOT NULL,
    judge                    VARCHAR NOT NULL,            -- 'release_autorater': the release's own autorater
    model                    VARCHAR NOT NULL,
    chat_id                  VARCHAR NOT NULL,
    turn                     INTEGER NOT NULL,
    preference               DOUBLE NOT NULL              -- (8 criteria + w*PIF) / (8 + w), w = the file's PIF weight (20)
);

CREATE TABLE IF NOT EXISTS mmmt_if_release_preferences (
    source                   VARCHAR NOT NULL,
    model_a                  VARCHAR NOT NULL,  -- the pair's first model (pairs in name order)
    model_b                  VARCHAR NOT NULL,  -- the pair's second model
    turns                    INTEGER NOT NULL,  -- turns where both models have a preference score
    wins                     INTEGER NOT NULL,  -- turns where model_a's preference score is higher
    ties                     INTEGER NOT NULL,  -- turns where the two scores are equal
    losses                   INTEGER NOT NULL,  -- turns where model_b's preference score is higher
    win_rate                 DOUBLE,            -- of model_a, a tie counting half
    unjudged                 INTEGER NOT NULL   -- turns where a side has no preference score
);

CREATE TABLE IF NOT EXISTS mmmt_if_release_ratings (
    source                   VARCHAR NOT NULL,
    model                    VARCHAR NOT NULL,
    rating                   DOUBLE NOT NULL,   -- Bradley-Terry on the Elo scale, mean 1000, from the preference-score
                                                -- outcomes
    rating_lower             DOUBLE,            -- bootstrap 2.5 % quantile of the rating (rounds resample turns); NULL
                                                -- without bootstrap
    rating_upper             DOUBLE,            -- bootstrap 97.5 % quantile of the rating
    judgments                INTEGER NOT NULL,  -- pairwise outcomes involving the model
    wins                     INTEGER NOT NULL,  -- outcomes the model won
    ties                     INTEGER NOT NULL,  -- outcomes that were a tie
    losses                   INTEGER NOT NULL,  -- outcomes the model lost
    at_bound                 BOOLEAN NOT NULL   -- won or lost everything: the rating is a bound, not an estimate
);
ALTER TABLE mmmt_if_release_ratings ADD COLUMN IF NOT EXISTS rank INTEGER;   -- 1 + the models clearly above (benchwright.ratings.upper_bound_ranks)
ALTER TABLE mmmt_if_release_ratings DROP COLUMN IF EXISTS tier;
ALTER TABLE mmmt_if_release_ratings ADD COLUMN IF NOT EXISTS rounds INTEGER;   -- bootstrap rounds behind the bounds
ALTER TABLE mmmt_if_release_ratings ADD COLUMN IF NOT EXISTS seed BIGINT;   -- of the bootstrap: the same seed, the same bounds

-- Preference-score outcomes vs the file's pairwise preferences, per pair of models and over all ('all').
CREATE TABLE IF NOT EXISTS mmmt_if_release_agreement (
    source                  VARCHAR NOT NULL,
    model_a                 VARCHAR NOT NULL, -- a pair's first model, as the file's preference column names it; 'all'
                                              -- for every pair
    model_b                 VARCHAR NOT NULL, -- its second model; 'all' for every pair
    n                       INTEGER NOT NULL, -- human choices matched with a preference-score outcome
    human_ties              INTEGER NOT NULL, -- of those, the people's ties
    agreement               DOUBLE,   -- ties must meet ties
    n_without_ties          INTEGER NOT NULL, -- choices where neither the people nor the outcome is a tie
    agreement_without_ties  DOUBLE,   -- agreement over those choices
    kappa                   DOUBLE,   -- Cohen's, over first / second / tie
    human_agrees_with_pif   DOUBLE,   -- 'all' row only: share of non-tied choices that follow the PIF order
    human_pif_pairs         INTEGER   -- 'all' row only: non-tied choices between responses whose PIFs differ
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
