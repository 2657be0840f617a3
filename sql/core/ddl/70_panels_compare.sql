-- Judge panels (registry/panels.yaml) and comparisons. A panel's own judgments live in the judgment
-- tables with the panel's slug as the judge; this is how far its members agree among themselves.

-- One row per panel × member pair (Cohen's kappa, exact agreement) and one per panel with
-- judge_a = judge_b = '*' (Fleiss' kappa, all members equal, member failures), over the five-point
-- pairwise verdicts of Creation (a unit = model × item × order).
CREATE TABLE IF NOT EXISTS panel_agreement (
    panel                  VARCHAR NOT NULL,  -- the panel's slug (registry/panels.yaml)
    judge_a                VARCHAR NOT NULL,  -- a member's slug; '*' on the all-members row
    judge_b                VARCHAR NOT NULL,  -- the other member's slug; '*' on the all-members row
    units                  INTEGER NOT NULL,  -- units both (or, for '*', all) members parsed
    exact_agreement        DOUBLE,            -- share of units with the same five-point verdict (all members, on the
                                              -- '*' row)
    cohen_kappa            DOUBLE,            -- Cohen's kappa of the two members; NULL on the '*' row
    fleiss_kappa           DOUBLE,            -- '*' row: Fleiss' kappa over all members; NULL otherwise
    member_parse_failures  INTEGER,           -- '*' row: member outputs that did not parse (never a vote)
    member_errors          INTEGER            -- '*' row: member calls that failed
);
-- How many independent judges the panel is worth (benchwright.families.effective_judges).
ALTER TABLE panel_agreement ADD COLUMN IF NOT EXISTS effective_judges DOUBLE;  -- '*' row: n / (1 + (n-1)·mean
                                                                               -- pairwise correlation of the
                                                                               -- members' verdict positions)

-- Judge self-preference (benchwright/families.py, docs/judge_families.md): per benchmark and judge, what the
-- judge gives candidates of its own family above the consensus of the judges outside the candidate's family,
-- net of what it gives the other families (its leniency), with a 95 % t interval over items.
CREATE TABLE IF NOT EXISTS judge_self_preference (
    benchmark          VARCHAR NOT NULL,  -- 'creation_pairwise' (win score: win 1, tie 0.5, loss 0) | 'urs' (final
                                          -- score 1..10)
    judge              VARCHAR NOT NULL,  -- the judge's registry slug (single judges; panels are not judged)
    judge_family       VARCHAR NOT NULL,  -- its family (registry `family:`, else derived from the model string)
    own_family_models  INTEGER NOT NULL,  -- candidates of the judge's family it scored
    items              INTEGER NOT NULL,  -- items with an own-family score and a consensus
    own_gap            DOUBLE,            -- mean over items of (judge's score − consensus) on own-family candidates
    own_gap_lower      DOUBLE,            -- 95 % t interval of own_gap over items: lower bound
    own_gap_upper      DOUBLE,            -- 95 % t interval of own_gap over items: upper bound
    other_gap          DOUBLE,            -- the same gap on the other families' candidates (the judge's leniency)
    self_preference    DOUBLE,            -- own_gap − other_gap, paired per item (own_gap when no other family)
    lower              DOUBLE,            -- 95 % t interval of self_preference over items: lower bound
    upper              DOUBLE,            -- 95 % t interval of self_preference over items: upper bound
    threshold          DOUBLE NOT NULL,   -- the warning threshold of the benchmark's scale
    flagged            BOOLEAN NOT NULL   -- lower > 0 and self_preference > threshold: the check warns
);

-- Two candidates item by item under one judge (Creation, each against the baseline): each side's
-- outcome value per item = the mean of its parsed orders on MW -2 .. MB 2; NULL when neither parsed.
CREATE TABLE IF NOT EXISTS comparison_model_items (
    judge      VARCHAR NOT NULL,
    model_a    VARCHAR NOT NULL, -- registry slug of one candidate (each pair once: model_a < model_b)
    model_b    VARCHAR NOT NULL, -- registry slug of the other candidate
    item_id    VARCHAR NOT NULL,
    value_a    DOUBLE,           -- model_a's mean over its parsed orders, MW -2 .. MB 2; NULL when none parsed
    value_b    DOUBLE,           -- model_b's, as value_a
    result_a   VARCHAR,          -- 'win' | 'tie' | 'loss' against the baseline (sign of value_a)
    result_b   VARCHAR,          -- model_b's 'win' | 'tie' | 'loss' against the baseline
    flipped    BOOLEAN           -- one side won where the other lost; NULL when a side has no result
);

-- Two judges item by item on the same judged unit (Creation: model × item × order).
CREATE TABLE IF NOT EXISTS comparison_judge_items (
    model        VARCHAR NOT NULL,
    judge_a      VARCHAR NOT NULL,
    judge_b      VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    judge_order  INTEGER NOT NULL, -- 1: baseline is A; 2: candidate is A
    verdict_a    VARCHAR,        -- NULL: unparsed
    verdict_b    VARCHAR,        -- judge_b's verdict; NULL: unparsed
    result_a     VARCHAR,        -- the candidate's 'win' | 'tie' | 'loss' in judge_a's verdict
    result_b     VARCHAR,        -- the candidate's result in judge_b's verdict
    flipped      BOOLEAN         -- one judge has the candidate win where the other has it lose
);

-- The summaries of the two tables above, every pair both ways round (sql/core/queries/compare/*.sql).
CREATE TABLE IF NOT EXISTS comparison_models (
    judge                    VARCHAR NOT NULL,
    model_a                  VARCHAR NOT NULL,  -- registry slug of one candidate (every pair both ways round)
    model_b                  VARCHAR NOT NULL,  -- registry slug of the other candidate
    compared                 BIGINT,            -- items where both have a result
    wins_a                   BIGINT,            -- of those, items model_a won against the baseline
    wins_b                   BIGINT,            -- items model_b won
    win_delta                BIGINT,            -- wins_a - wins_b
    losses_a                 BIGINT,            -- items model_a lost
    losses_b                 BIGINT,            -- items model_b lost
    loss_delta               BIGINT,            -- losses_a - losses_b
    a_won_b_lost             BIGINT,            -- items model_a won and model_b lost
    b_won_a_lost             BIGINT,            -- items model_b won and model_a lost
    flipped                  BIGINT,            -- a_won_b_lost + b_won_a_lost
    agreement                DOUBLE,            -- share of compared items with the same result
    mean_value_delta         DOUBLE,            -- mean of value_a - value_b (MW -2 .. MB 2)
    items                    BIGINT             -- items judged for both, parsed or not
);

CREATE TABLE IF NOT EXISTS comparison_judges (
    model                    VARCHAR NOT NULL,  -- the candidate, or 'all' over every candidate
    judge_a                  VARCHAR NOT NULL,
    judge_b                  VARCHAR NOT NULL,
    compared                 BIGINT,            -- units both judges parsed
    wins_a                   BIGINT,            -- of those, units judge_a has the candidate win
    wins_b                   BIGINT,            -- units judge_b has the candidate win
    win_delta                BIGINT,            -- wins_a - wins_b
    losses_a                 BIGINT,            -- units judge_a has the candidate lose
    losses_b                 BIGINT,            -- units judge_b has the candidate lose
    loss_delta               BIGINT,            -- losses_a - losses_b
    a_won_b_lost             BIGINT,            -- units judge_a has it win and judge_b lose
    b_won_a_lost             BIGINT,            -- units judge_b has it win and judge_a lose
    flipped                  BIGINT,            -- a_won_b_lost + b_won_a_lost
    agreement                DOUBLE,            -- share of compared units with the same result (win / tie / loss)
    exact_agreement          DOUBLE,            -- share of compared units with the same five-point verdict
    unparsed_a               BIGINT,            -- units only judge_b parsed
    unparsed_b               BIGINT,            -- units only judge_a parsed
    units                    BIGINT             -- units both judged, parsed or not
);
