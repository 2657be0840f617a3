-- Interop: imported judgments and human labels, ratings, agreement with people.
-- Imported judgments themselves go to creation_pairwise_judgments (source = '<importer>:<dataset>').

-- One row per imported source: what was read, from where, and what it was compared with.
CREATE TABLE IF NOT EXISTS interop_imports (
    source           VARCHAR NOT NULL,   -- '<importer>:<dataset>', the `source` of its judgment rows
    importer         VARCHAR NOT NULL,   -- arena_hard | alpaca_eval | auto_j | llmbar
    dataset          VARCHAR NOT NULL,   -- the dataset of the importer's source
    baseline         VARCHAR,            -- the model every candidate was compared with; NULL for human-labelled pairs
    files            VARCHAR[] NOT NULL, -- the files read
    judgments        INTEGER NOT NULL,   -- judge judgments imported
    parse_failures   INTEGER NOT NULL,   -- judgments whose verdict the source could not parse
    human_labels     INTEGER NOT NULL,   -- human labels imported (interop_human_labels rows)
    preferences      INTEGER NOT NULL,   -- graded preferences imported (interop_preferences rows)
    notes            VARCHAR,            -- what the importer noted about the source ('; '-separated)
    imported_at      TIMESTAMP NOT NULL  -- when (UTC)
);

-- People's (or a gold standard's) preference on a pair: first response (baseline, A in order 1),
-- second response (candidate) or tie. value: the same on the -2..+2 scale from the second's side.
CREATE TABLE IF NOT EXISTS interop_human_labels (
    source       VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    item_group   VARCHAR NOT NULL,   -- the source's grouping (Auto-J scenario group, LLMBar subset ...)
    annotator    VARCHAR NOT NULL,   -- the labeller as the source names them: 'human' (Auto-J), 'gold' (LLMBar)
    label        VARCHAR NOT NULL,   -- 'first' | 'second' | 'tie'
    value        DOUBLE NOT NULL     -- label on the -2..+2 scale from the second response's side: first -1, tie 0,
                                     -- second +1
);

-- Graded preferences kept exactly as imported (AlpacaEval: 1 = baseline better, 2 = model better,
-- 1.5 or 0 = draw, NULL = the annotator gave no usable answer).
CREATE TABLE IF NOT EXISTS interop_preferences (
    source       VARCHAR NOT NULL,
    judge        VARCHAR NOT NULL,
    model        VARCHAR NOT NULL,
    baseline     VARCHAR NOT NULL,  -- the model the preference is against (output_1)
    item_id      VARCHAR NOT NULL,
    preference   DOUBLE             -- as imported: 1 baseline better .. 2 model better, 1.5 or 0 a draw; NULL no usable
                                    -- answer
);

-- Bradley-Terry ratings on the Elo scale, per source and judge, anchored on the baseline.
CREATE TABLE IF NOT EXISTS interop_ratings (
    source            VARCHAR NOT NULL,
    judge             VARCHAR NOT NULL,
    model             VARCHAR NOT NULL,
    anchor            VARCHAR NOT NULL,  -- the model whose rating is fixed at 1000 (the baseline)
    rating            DOUBLE NOT NULL,   -- anchor = 1000
    rating_lower      DOUBLE,            -- bootstrap quantiles (see quantile_low / quantile_high)
    rating_upper      DOUBLE,            -- upper bootstrap quantile (quantile_high)
    win_rate          DOUBLE,            -- expected score against the anchor x100 (anchor: 50)
    win_rate_lower    DOUBLE,            -- bootstrap quantiles of win_rate
    win_rate_upper    DOUBLE,            -- upper bootstrap quantile of win_rate
    judgments         INTEGER NOT NULL,  -- parsed judgments involving the model
    weighted_battles  DOUBLE NOT NULL,                  -- judgments times their outcome weight (outcome_weights)
    wins              INTEGER NOT NULL,  -- parsed judgments involving the model that it won
    ties              INTEGER NOT NULL,  -- parsed judgments involving the model that were a tie
    losses            INTEGER NOT NULL,  -- parsed judgments involving the model that it lost
    at_bound          BOOLEAN NOT NULL,  -- won or lost everything: the rating is a bound, not an estimate
    outcome_weights   VARCHAR NOT NULL,  -- e.g. 'A>>B=3 A>B=1 A=B=1 B>A=1 B>>A=3'
    single_game_rule  VARCHAR NOT NULL,  -- 'reuse_first' (Arena-Hard) | 'none'
    bootstrap_rounds  INTEGER NOT NULL,  -- resamples behind the intervals
    quantile_low      DOUBLE NOT NULL,                  -- the lower bootstrap quantile (e.g. 0.025)
    quantile_high     DOUBLE NOT NULL,                  -- the upper bootstrap quantile (e.g. 0.975)
    seed              INTEGER NOT NULL,  -- of the bootstrap: the same seed gives the same interval
    model_display     VARCHAR,
    judge_display     VARCHAR,
    simulated         BOOLEAN NOT NULL,
    control           VARCHAR NOT NULL DEFAULT 'none',  -- style control: none | style | length | markdown
    rank              INTEGER,           -- 1 + the models whose lower bound is above this one's upper bound (benchwright.ratings.upper_bound_ranks); NULL without intervals
    style_coefficients VARCHAR,          -- fitted style coefficients, log-odds per standard deviation ('tokens=0.21 ...')
    bootstrap_unit    VARCHAR            -- what a bootstrap round resamples: 'prompt' | 'judgment'
);
ALTER TABLE interop_ratings ADD COLUMN IF NOT EXISTS control VARCHAR DEFAULT 'none';
-- The rank by upper bound (benchwright.ratings.upper_bound_ranks: 1 + the models clearly above) replaced the overlap
-- tiers, which chained models far apart into one tier.
ALTER TABLE interop_ratings ADD COLUMN IF NOT EXISTS rank INTEGER;
ALTER TABLE interop_ratings DROP COLUMN IF EXISTS tier;
ALTER TABLE interop_ratings ADD COLUMN IF NOT EXISTS style_coefficients VARCHAR;
ALTER TABLE interop_ratings ADD COLUMN IF NOT EXISTS bootstrap_unit VARCHAR;

-- Style counts of the answers a pairwise judgment compared, what style-controlled ratings read
-- (benchwright.ratings.STYLE_COLUMNS). Imported sources: from their metadata (Arena-Hard's
-- conv_metadata); our own answers are counted from their text when the ratings are computed.
CREATE TABLE IF NOT EXISTS answer_style (
    source   VARCHAR NOT NULL,
    model    VARCHAR NOT NULL,
    item_id  VARCHAR NOT NULL,
    tokens   INTEGER NOT NULL,   -- tokens of the whole answer (Arena-Hard's token_len for imports;
                                 -- benchwright.ratings.answer_style)
    headers  INTEGER NOT NULL,   -- markdown headers h1-h6
    lists    INTEGER NOT NULL,   -- ordered and unordered list items
    bold     INTEGER NOT NULL    -- ** and __ spans
);

-- AlpacaEval-style head-to-head figures from graded preferences.
CREATE TABLE IF NOT EXISTS interop_win_rates (
    source             VARCHAR NOT NULL,
    judge              VARCHAR NOT NULL,
    model              VARCHAR NOT NULL,
    baseline           VARCHAR NOT NULL, -- the model every preference is against
    win_rate           DOUBLE,    -- 100 x mean(preference - 1), draws count half
    standard_error     DOUBLE,    -- 100 x standard error of that mean
    n_wins             INTEGER NOT NULL, -- preferences above 1.5 (the model better)
    n_wins_base        INTEGER NOT NULL, -- preferences below 1.5 (the baseline better)
    n_draws            INTEGER NOT NULL, -- preferences exactly 1.5 (or 0)
    n_total            INTEGER NOT NULL, -- usable preferences
    n_failed           INTEGER NOT NULL, -- missing preferences (no usable answer): left out of the rest
    discrete_win_rate  DOUBLE     -- 100 x (n_wins + n_draws / 2) / n_total
);

-- AlpacaEval 2's length-controlled win rate per AlpacaEval source and model (benchwright.length_control):
-- the GLM sigma(model + length*tanh(std length difference) + difficulty_coef*difficulty) per annotation,
-- predicted with the length term at zero and averaged.
CREATE TABLE IF NOT EXISTS interop_lc_win_rates (
    source            VARCHAR NOT NULL,
    judge             VARCHAR NOT NULL,
    model             VARCHAR NOT NULL,
    baseline          VARCHAR NOT NULL,  -- the model every preference is against
    lc_win_rate       DOUBLE NOT NULL,   -- x100; the baseline itself: 50
    model_coef        DOUBLE NOT NULL,   -- theta
    length_coef       DOUBLE NOT NULL,   -- gamma, on tanh((baseline_len - model_len) / sd)
    difficulty_coef   DOUBLE,            -- beta; NULL when no instruction difficulty was given
    length_coef_from  VARCHAR NOT NULL,  -- 'weights' (AlpacaEval's shared weights) | 'fit' | 'baseline'
    difficulty_used   BOOLEAN NOT NULL,  -- the β·difficulty term was fitted (instruction difficulties given)
    n_items           INTEGER NOT NULL,  -- annotations averaged over
    n_fitted          INTEGER NOT NULL   -- annotations with a preference (the fit's rows)
);

-- Judge-human agreement per source, judge and item group ('Overall' for all items).
CREATE TABLE IF NOT EXISTS interop_agreement (
    source                   VARCHAR NOT NULL,
    judge                    VARCHAR NOT NULL,
    item_group               VARCHAR NOT NULL,   -- the source's item group (interop_human_labels.item_group), or
                                                 -- 'Overall'
    items                    INTEGER NOT NULL,   -- items with both a human label and the judge's judgment (parsed or not)
    human_labels             INTEGER NOT NULL,   -- human labels compared (an item labelled by three people counts three
                                                 -- times)
    judge_failures           INTEGER NOT NULL,   -- orders with no usable judge label
    agreement                DOUBLE,   -- both orders pooled, ties included
    agreement_without_ties   DOUBLE,             -- agreement leaving out labels where the human or the judge said tie
    agreement_order1         DOUBLE,   -- non-dual
    agreement_both           DOUBLE,   -- both orders must match the human label (Auto-J)
    swap_consistency         DOUBLE,             -- share of items whose two orders agree, among those with both parsed
    kappa_order1             DOUBLE,             -- Cohen's kappa, order 1 against the human labels
    mae_dual                 DOUBLE,   -- benchwright/creation/README.md#human-alignment, -2..+2 scale
    consistency_dual         DOUBLE,             -- share of items with |J - P| <= 1 (J: mean of both orders; P: mean
                                                 -- human value)
    mae_single               DOUBLE,             -- mean |J - P| with J from order 1 only
    consistency_single       DOUBLE,             -- share of |J - P| <= 1 with J from order 1 only
    pearson_dual             DOUBLE,             -- Pearson r of J (dual) and P across items
    spearman_dual            DOUBLE,             -- Spearman rho of J (dual) and P across items
    human_human_mae          DOUBLE,   -- leave-one-out among people; NULL with one label per item
    human_human_consistency  DOUBLE,             -- leave-one-out share of |J - P| <= 1 among people; NULL with one
                                                 -- label per item
    judge_display            VARCHAR,
    simulated                BOOLEAN NOT NULL
);

-- Which side is a simulation (assets.common.add_labels; the ledger: assets.ledger): model_simulated for the
-- `model` slug, judge_simulated for the `judge` slug, NULL where the table has no such column;
-- `simulated` = either.
ALTER TABLE interop_ratings ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE interop_ratings ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
ALTER TABLE interop_agreement ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE interop_agreement ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
