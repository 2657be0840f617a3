-- Integrity canaries (benchwright/canaries.py, docs/CANARIES.md): fixed answers (`role: canary` in
-- registry/models.yaml) that each judge judges on the first items of every benchmark it serves, through the
-- benchmark's own prompts and parsers. Written by the asset canary_judgments, one judge's rows at a time.

-- Each judged unit: one canary's fixed answer on one item (in one order, for pairwise judging).
CREATE TABLE IF NOT EXISTS canary_judgments (
    judge            VARCHAR NOT NULL,   -- the judge's registry slug
    benchmark        VARCHAR NOT NULL,   -- the benchmark whose prompt and parser judged it
    model            VARCHAR NOT NULL,   -- the canary's registry slug (`role: canary`), listed like a model
    canary_kind      VARCHAR NOT NULL,   -- constant | injection | style | blind (the `canary/<kind>` of its model)
    item_id          VARCHAR NOT NULL,   -- the item, among the benchmark's first items by natural key
    unit             VARCHAR NOT NULL,   -- the judging order for pairwise judging ('1': baseline is A, '2': canary is A); 'vfs' for Creation's Visual Factuality Score; '' otherwise
    injection_kinds  VARCHAR,            -- judge formats found in the canary's answer (benchwright/answer_injection.py); NULL when none
    raw_text         VARCHAR,            -- the judge's output as it wrote it
    value            DOUBLE,             -- the unit's share of the figure: 1 or 0 for a pairwise win, the score (Creation's VFS: B's 0-10; MMMT-IF: preference) of a scored answer; NULL when not parsed
    parse_ok         BOOLEAN NOT NULL,   -- the benchmark's parser read a value the judge wrote itself (echoes of the answer never count)
    parse_problem    VARCHAR,            -- why the output did not parse ('echoed_answer' when only echoed values were found)
    error            VARCHAR,            -- the call's error when it failed (then no value and no parse failure)
    request_key      VARCHAR,            -- the LLM cache key of the judge's request
    model_simulated  BOOLEAN,            -- false: a canary's answer is fixed text, no simulation's (assets.common.with_simulation_flags)
    judge_simulated  BOOLEAN,            -- the judge is a simulation
    simulated        BOOLEAN             -- either is a simulation (here: the judge)
);

-- Per judge × benchmark × metric × canary: the benchmark's own figure on the canary's units, the weakest registered
-- candidate's on the same items under the same judge, and the threshold the canary must not exceed.
CREATE TABLE IF NOT EXISTS canary_results (
    judge            VARCHAR NOT NULL,   -- the judge's registry slug
    benchmark        VARCHAR NOT NULL,   -- the benchmark judged
    model            VARCHAR NOT NULL,   -- the canary's registry slug, listed like a model
    canary_kind      VARCHAR NOT NULL,   -- constant | injection | style | blind
    metric           VARCHAR NOT NULL,   -- the figure: win_rate (against the baseline, both orders) or vfs (Creation: two rows per canary), mean_score or preference (MMMT-IF)
    items            INTEGER NOT NULL,   -- items judged (the benchmark's first ones by natural key)
    judged           INTEGER NOT NULL,   -- units whose output parsed (the figure's n)
    parse_failures   INTEGER NOT NULL,   -- units whose output did not parse
    failed_calls     INTEGER NOT NULL,   -- units whose call failed
    figure           DOUBLE,             -- the canary's figure: mean of the parsed units' values; NULL when none parsed
    figure_lower     DOUBLE,             -- lower end of the figure's one-sided 95 % interval (Wilson for a win rate, t for a mean)
    weakest_model    VARCHAR,            -- the registered candidate with the lowest figure on the same items (NULL: none judged there)
    weakest_figure   DOUBLE,             -- that candidate's figure on the same items under the same judge
    null_figure      DOUBLE NOT NULL,    -- what an answer no better than the baseline or the reference gets (0.5 win rate, ...)
    threshold        DOUBLE NOT NULL,    -- the lower of weakest_figure and null_figure: the most the canary may reach
    beats_threshold  BOOLEAN NOT NULL,   -- figure_lower > threshold: the judge clearly prefers a fixed answer (check canaries_lose fails)
    canary           BOOLEAN NOT NULL,   -- always true: the model is a canary, never a candidate
    model_display    VARCHAR,            -- the canary's display name, marked [canary] (registry label)
    judge_display    VARCHAR,            -- the judge's display name, marked [simulated] for a simulation
    model_simulated  BOOLEAN,            -- false: a canary's answer is fixed text, no simulation's
    judge_simulated  BOOLEAN,            -- the judge is a simulation
    simulated        BOOLEAN             -- either is a simulation (here: the judge)
);
