-- Redundancy with other benchmarks (README.md#redundancy-with-other-benchmarks; benchwright.redundancy).

-- Other benchmarks' scores, dropped as CSV (a `model` column, one column per benchmark).
CREATE TABLE IF NOT EXISTS external_benchmark_scores (
    benchmark         VARCHAR NOT NULL,   -- the other benchmark (the CSV column's header)
    model             VARCHAR NOT NULL,   -- registry slug when the name matched one, else the name as written
    model_as_written  VARCHAR NOT NULL,
    score             DOUBLE  NOT NULL,
    source_file       VARCHAR NOT NULL,
    source_line       INTEGER NOT NULL
);

-- Each of our leaderboards against each other benchmark, over the models scored on both.
CREATE TABLE IF NOT EXISTS benchmark_redundancy (
    leaderboard      VARCHAR NOT NULL,   -- ours: creation_reward, urs_final_score, mmmt_if_pif_<variant>, ...
    judge            VARCHAR NOT NULL,   -- '' for a leaderboard without a judge
    other_benchmark  VARCHAR NOT NULL,
    n_models         INTEGER NOT NULL,
    spearman         DOUBLE,             -- NULL below 3 models (or when one side is constant)
    spearman_p       DOUBLE,
    r2               DOUBLE,             -- of the least-squares line: the squared Pearson correlation
    models           VARCHAR NOT NULL    -- the models compared, by slug
);
