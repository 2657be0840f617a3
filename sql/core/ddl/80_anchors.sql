-- Small anchor sets (README.md#small-anchor-sets; benchwright.anchors, after tinyBenchmarks): an item-response
-- model per benchmark and judge, the items chosen to stand for the others, and the full scores they estimate.

-- One row per benchmark × source × judge (the pairwise judgments of each source with a baseline, URS's final
-- scores): what was fitted, or why nothing was.
CREATE TABLE IF NOT EXISTS anchor_fits (
    benchmark         VARCHAR NOT NULL,   -- 'creation', 'urs' (source 'benchwright') or 'interop' (an imported source)
    source            VARCHAR NOT NULL,   -- 'benchwright' or '<importer>:<dataset>', as in the judgment tables
    judge             VARCHAR NOT NULL,   -- the judge (or panel) whose verdicts were fitted
    baseline          VARCHAR NOT NULL,   -- the model every candidate was compared with (URS: the reference answers' writer)
    status            VARCHAR NOT NULL,   -- 'fitted' | 'not enough data' (then no anchor_items rows)
    reason            VARCHAR,            -- why not enough data: the counts and what the fit needs; NULL when fitted
    models            INTEGER NOT NULL,   -- models with a parsed judgment (the baseline's self-battles included)
    items             INTEGER NOT NULL,   -- items with a parsed judgment
    anchors           INTEGER NOT NULL,   -- anchors chosen (at most 100, about a fifth of the items); 0 when not fitted
    outcome_weights   VARCHAR NOT NULL,   -- battles per verdict (arena_hard sources: A>>B and B>>A count 3); URS: its score's share
    single_game_rule  VARCHAR NOT NULL,   -- 'reuse_first' (Arena-Hard's rule for a one-game record) or 'none'
    score_min         DOUBLE NOT NULL,    -- the benchmark's scale the estimates are on: 0 (win rate) or 1 (URS)
    score_max         DOUBLE NOT NULL,    -- 100 (win rate) or 10 (URS's final score)
    weight_slope      DOUBLE,             -- battles gained per unit of (2p - 1)^2, shared by the items; NULL when not fitted
    seed              INTEGER NOT NULL    -- of the k-means start that chose the anchors
);

-- Every item of a fitted set: its 2PL parameters, and whether it is an anchor and for what share of the items.
-- P(win) is a battle's chance (pairwise) or a judgment's expected share of its scale (URS).
CREATE TABLE IF NOT EXISTS anchor_items (
    benchmark          VARCHAR NOT NULL,  -- as in anchor_fits
    source             VARCHAR NOT NULL,  -- as in anchor_fits
    judge              VARCHAR NOT NULL,  -- as in anchor_fits
    item_id            VARCHAR NOT NULL,  -- the benchmark's item (Creation item, Arena-Hard question id)
    is_anchor          BOOLEAN NOT NULL,  -- chosen: the item nearest its cluster's centre
    weight             DOUBLE NOT NULL,   -- the anchor's cluster's share of the items (sums to 1 per set); 0 for others
    discrimination     DOUBLE NOT NULL,   -- a: how sharply the item separates abilities, in P(win) = σ(a·θ + d)
    intercept          DOUBLE NOT NULL,   -- d: the log-odds of a win for an ability of 0
    difficulty         DOUBLE NOT NULL,   -- b = -d / a: the ability with even odds on this item
    mean_weight        DOUBLE NOT NULL,   -- battles (URS: judgments) per model on this item, averaged over the fitted models
    mean_decisiveness  DOUBLE NOT NULL    -- mean (2p - 1)^2 over the fitted models (the weight model's centre)
);

-- Each model's full score estimated from its anchor judgments alone, with a 95 % bootstrap interval. In the full
-- home every judged model gets one (the estimate beside its observed full score); in a `dev.py run --limit anchors`
-- home it is the run's result.
CREATE TABLE IF NOT EXISTS anchor_estimates (
    benchmark         VARCHAR NOT NULL,   -- as in anchor_fits
    source            VARCHAR NOT NULL,   -- as in anchor_fits
    judge             VARCHAR NOT NULL,   -- as in anchor_fits
    model             VARCHAR NOT NULL,   -- the candidate
    estimate          DOUBLE NOT NULL,    -- estimated full score on the set's scale (score_min-score_max): mean of the two below
    estimate_low      DOUBLE NOT NULL,    -- 2.5 % bootstrap percentile (anchors resampled)
    estimate_high     DOUBLE NOT NULL,    -- 97.5 % bootstrap percentile
    anchor_estimate   DOUBLE NOT NULL,    -- the anchors' results weighted by their cluster shares
    irt_estimate      DOUBLE NOT NULL,    -- the other items' results predicted from the ability fitted on the anchors
    ability           DOUBLE NOT NULL,    -- θ fitted on the anchors (MAP, prior N(0, 1))
    anchors           INTEGER NOT NULL,   -- the set's anchors
    anchors_answered  INTEGER NOT NULL,   -- of them, those with a parsed judgment of this model
    items_judged      INTEGER NOT NULL,   -- items of this model with a parsed judgment in this warehouse
    observed_score    DOUBLE NOT NULL,    -- the score over items_judged on the same scale (the full score when all are)
    bootstrap_rounds  INTEGER NOT NULL,   -- resamples of the anchors
    seed              INTEGER NOT NULL    -- of the bootstrap
);
