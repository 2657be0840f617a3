-- Judge panels (registry/panels.yaml) and comparisons. A panel's own judgments live in the judgment
-- tables with the panel's slug as the judge; this is how far its members agree among themselves.

-- One row per panel × member pair (Cohen's kappa, exact agreement) and one per panel with
-- judge_a = judge_b = '*' (Fleiss' kappa, all members equal, member failures), over the five-point
-- pairwise verdicts of Creation (a unit = model × item × order).
CREATE TABLE IF NOT EXISTS panel_agreement (
    panel                  VARCHAR NOT NULL,
    judge_a                VARCHAR NOT NULL,
    judge_b                VARCHAR NOT NULL,
    units                  INTEGER NOT NULL,  -- units both (or, for '*', all) members parsed
    exact_agreement        DOUBLE,
    cohen_kappa            DOUBLE,
    fleiss_kappa           DOUBLE,
    member_parse_failures  INTEGER,           -- '*' row: member outputs that did not parse (never a vote)
    member_errors          INTEGER            -- '*' row: member calls that failed
);

-- Two candidates item by item under one judge (Creation, each against the baseline): each side's
-- outcome value per item = the mean of its parsed orders on MW -2 .. MB 2; NULL when neither parsed.
CREATE TABLE IF NOT EXISTS comparison_model_items (
    judge      VARCHAR NOT NULL,
    model_a    VARCHAR NOT NULL,
    model_b    VARCHAR NOT NULL,
    item_id    VARCHAR NOT NULL,
    value_a    DOUBLE,
    value_b    DOUBLE,
    result_a   VARCHAR,          -- 'win' | 'tie' | 'loss' against the baseline (sign of value_a)
    result_b   VARCHAR,
    flipped    BOOLEAN           -- one side won where the other lost; NULL when a side has no result
);

-- Two judges item by item on the same judged unit (Creation: model × item × order).
CREATE TABLE IF NOT EXISTS comparison_judge_items (
    model        VARCHAR NOT NULL,
    judge_a      VARCHAR NOT NULL,
    judge_b      VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    judge_order  INTEGER NOT NULL,
    verdict_a    VARCHAR,        -- NULL: unparsed
    verdict_b    VARCHAR,
    result_a     VARCHAR,        -- the candidate's 'win' | 'tie' | 'loss' in judge_a's verdict
    result_b     VARCHAR,
    flipped      BOOLEAN         -- one judge has the candidate win where the other has it lose
);

-- The summaries of the two tables above, every pair both ways round (sql/core/queries/compare/*.sql).
CREATE TABLE IF NOT EXISTS comparison_models (
    judge VARCHAR NOT NULL, model_a VARCHAR NOT NULL, model_b VARCHAR NOT NULL,
    compared BIGINT, wins_a BIGINT, wins_b BIGINT, win_delta BIGINT, losses_a BIGINT, losses_b BIGINT,
    loss_delta BIGINT, a_won_b_lost BIGINT, b_won_a_lost BIGINT, flipped BIGINT, agreement DOUBLE,
    mean_value_delta DOUBLE, items BIGINT
);

CREATE TABLE IF NOT EXISTS comparison_judges (
    model VARCHAR NOT NULL, judge_a VARCHAR NOT NULL, judge_b VARCHAR NOT NULL,
    compared BIGINT, wins_a BIGINT, wins_b BIGINT, win_delta BIGINT, losses_a BIGINT, losses_b BIGINT,
    loss_delta BIGINT, a_won_b_lost BIGINT, b_won_a_lost BIGINT, flipped BIGINT, agreement DOUBLE,
    exact_agreement DOUBLE, unparsed_a BIGINT, unparsed_b BIGINT, units BIGINT
);
