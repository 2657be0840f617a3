-- Human-calibrated estimates (benchwright/calibrated.py, docs/calibrated_estimates.md): a few human
-- labels and many judge labels combined by prediction-powered inference (PPI++, Angelopoulos, Duchi & Zrnic 2023).
-- Rates are win rates on 0..1 (ties count 1/2); every interval is 95 %.
CREATE TABLE IF NOT EXISTS calibrated_estimates (
    benchmark            VARCHAR NOT NULL,   -- 'creation' | 'urs' | 'interop' (the imported Auto-J and LLMBar sets)
    source               VARCHAR NOT NULL,   -- 'benchwright' for our judgments, '<importer>:<dataset>' for an import
    judge                VARCHAR NOT NULL,   -- the judge whose labels cover every item (slug or imported name)
    model                VARCHAR,            -- whose win rate: the Creation candidate, the URS model; NULL for imported pairs (the second response)
    opponent             VARCHAR,            -- against whom: 'baseline' (Creation), the other URS model; NULL for imported pairs
    estimand             VARCHAR NOT NULL,   -- 'candidate_win_rate' | 'model_win_rate' | 'second_win_rate'
    n_human              INTEGER NOT NULL,   -- items with a human label that the judge also saw (n)
    n_judge              INTEGER NOT NULL,   -- items with a usable judge verdict
    n_unlabeled          INTEGER NOT NULL,   -- items the judge saw that have no (used) human label (N)
    judge_failures       INTEGER NOT NULL,   -- items without a usable judge verdict (1/2 in PPI, left out of judge_only)
    judge_only           DOUBLE NOT NULL,    -- the judge's win rate over its usable verdicts: not calibrated to people
    judge_only_lower     DOUBLE NOT NULL,    -- lower bound of judge_only's interval (its own sampling error only)
    judge_only_upper     DOUBLE NOT NULL,    -- upper bound of judge_only's interval
    human_only           DOUBLE NOT NULL,    -- the people's win rate over the n labelled items
    human_only_lower     DOUBLE NOT NULL,    -- lower bound of the classical (CLT) interval on the n labels
    human_only_upper     DOUBLE NOT NULL,    -- upper bound of the classical interval
    calibrated           DOUBLE NOT NULL,    -- the PPI++ estimate of the people's win rate (human and judge labels)
    calibrated_lower     DOUBLE NOT NULL,    -- lower bound of the PPI++ interval
    calibrated_upper     DOUBLE NOT NULL,    -- upper bound of the PPI++ interval
    ppi_lambda           DOUBLE NOT NULL,    -- the power-tuned weight on the judge, 0..1 (0: the human-only estimate)
    effective_n_human    DOUBLE,             -- human labels alone that would give the calibrated interval's width: n (se_human / se_calibrated)^2
    labels_added         DOUBLE,             -- effective_n_human - n_human: what the judge's labels are worth in human labels
    held_out_human_rate  DOUBLE,             -- imported sets: the human rate over every labelled pair, of which n were used; NULL otherwise
    held_out_n           INTEGER,            -- imported sets: the labelled pairs held_out_human_rate is over; NULL otherwise
    judge_display        VARCHAR,            -- the judge's display name
    model_display        VARCHAR,            -- the model's display name
    opponent_display     VARCHAR,            -- the opponent's display name
    model_simulated      BOOLEAN,            -- the model is a simulation (NULL for imported pairs: no model)
    judge_simulated      BOOLEAN,            -- the judge is a simulation
    simulated            BOOLEAN NOT NULL    -- the judge, the model or the opponent is a simulation (the human labels are people's)
);
