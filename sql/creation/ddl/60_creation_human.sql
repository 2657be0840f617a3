-- Human pairwise choices for Creation (benchwright/creation/README.md#human-alignment), from the drop folder the annotation app writes
-- (format: benchwright/human_pairwise.py), and the judge–human alignment computed from them.
-- URS choices from the same folder go to urs_human_pairwise (sql/urs/ddl/20_urs.sql).

CREATE TABLE IF NOT EXISTS creation_human_pairwise (
    benchmark      VARCHAR NOT NULL,   -- always 'creation' here
    item_id        VARCHAR NOT NULL,
    model_a        VARCHAR NOT NULL,   -- the baseline: who wrote the item's reference answer ('dataset' or a slug)
    model_b        VARCHAR NOT NULL,   -- the candidate
    winner         VARCHAR NOT NULL,   -- 'A' | 'B' | 'tie' | 'undetermined' (cannot tell)
    strength       INTEGER,            -- 2 much better, 1 better, 0 tie; NULL for undetermined
    value          DOUBLE,             -- the candidate's -2..+2 value; NULL for undetermined
    annotator      VARCHAR,            -- who chose (personal data replaced by a stable pseudonym person-<hex>); NULL
                                       -- when the file does not say
    left_model     VARCHAR,            -- which answer was shown on the left
    item_position  INTEGER,            -- 1-based order in the round
    round_id       VARCHAR,            -- the annotation round (personal data redacted); NULL when the file does not say
    recorded_at    VARCHAR,            -- ISO-8601, UTC
    seconds_taken  DOUBLE,             -- seconds spent on the choice; NULL when the file does not say
    source_file    VARCHAR NOT NULL    -- the CSV's name in the drop folder (one named after a person: a pseudonym)
);

-- Per judge × model × mode: 'dual' | 'non_dual' (judge against the mean human value per item), and
-- 'human_human' (judge '(humans)': leave-one-out among people).
CREATE TABLE IF NOT EXISTS creation_human_alignment (
    judge           VARCHAR NOT NULL,
    model           VARCHAR NOT NULL,
    mode            VARCHAR NOT NULL,   -- 'dual' (mean of both orders) | 'non_dual' (order 1) | 'human_human'
                                        -- (leave-one-out among people)
    items           INTEGER NOT NULL,   -- items with both a judge (or one person's) value and a human mean
    comparisons     INTEGER NOT NULL,   -- J–P pairs the figures are over (= items, except human_human)
    human_choices   INTEGER NOT NULL,   -- decided human choices on the model ('cannot tell' left out)
    judge_failures  INTEGER NOT NULL,   -- the judge's unparsed verdicts on those items: left out, counted
    judge_errors    INTEGER NOT NULL,   -- failed judge calls on those items: left out, counted
    mae             DOUBLE,             -- mean |J - P| on the -2..+2 scale; NULL when no item
    consistency     DOUBLE,             -- share of |J - P| <= 1
    judge_display   VARCHAR,
    model_display   VARCHAR,
    simulated       BOOLEAN NOT NULL    -- the judge or the candidate is a simulation (the choices are people's)
);

-- Which side is a simulation (assets.common.add_labels; the ledger: assets.ledger): model_simulated for the
-- `model` slug, judge_simulated for the `judge` slug, NULL where the table has no such column;
-- `simulated` = either.
ALTER TABLE creation_human_alignment ADD COLUMN IF NOT EXISTS model_simulated BOOLEAN;
ALTER TABLE creation_human_alignment ADD COLUMN IF NOT EXISTS judge_simulated BOOLEAN;
