-- Redundancy with other benchmarks (README.md#redundancy-with-other-benchmarks; benchwright.redundancy).

-- Other benchmarks' scores, dropped as CSV (a `model` column, one column per benchmark).
CREATE TABLE IF NOT EXISTS external_benchmark_scores (
    benchmark         VARCHAR NOT NULL,   -- the other benchmark (the CSV column's header)
    model             VARCHAR NOT NULL,   -- registry slug when the name matched one, else the name as written
    model_as_written  VARCHAR NOT NULL,   -- the model name as the CSV wrote it
    score             DOUBLE  NOT NULL,   -- the model's score on that benchmark, as written
    source_file       VARCHAR NOT NULL,   -- the CSV's file name
    source_line       INTEGER NOT NULL    -- the row's line in the CSV
);

-- Each of our leaderboards against each other benchmark, over the models scored on both.
CREATE TABLE IF NOT EXISTS benchmark_redundancy (
    leaderboard      VARCHAR NOT NULL,   -- ours: creation_reward, urs_final_score, mmmt_if_pif_<variant>, ...
    judge            VARCHAR NOT NULL,   -- '' for a leaderboard without a judge
    other_benchmark  VARCHAR NOT NULL,   -- the other benchmark (external_benchmark_scores.benchmark)
    n_models         INTEGER NOT NULL,   -- models scored on both
    spearman         DOUBLE,             -- NULL below 3 models (or when one side is constant)
    spearman_p       DOUBLE,             -- two-sided p of the Spearman correlation; NULL with it
    r2               DOUBLE,             -- of the least-squares line: the squared Pearson correlation
    models           VARCHAR NOT NULL    -- the models compared, by slug
);
