-- Upgrade of a warehouse written before the answer and verdict tables had model_simulated / judge_simulated
-- (their ALTERs sit beside each table): the old rows gain the flags their one `simulated` column and the
-- other tables determine exactly. New rows are flagged when written (assets.common.flagged_rows); after the
-- first upgrade these statements find no row to fill, but what none of them can tell (a simulated model judged
-- by a judge that judged only simulated models and never called the simulator itself, a panel of such) stays
-- NULL until its partition is written again.

-- Answers, references and descriptions: `simulated` was the answering model's flag.
UPDATE generations SET model_simulated = simulated WHERE model_simulated IS NULL;
UPDATE creation_references SET model_simulated = simulated WHERE model_simulated IS NULL;
UPDATE creation_image_descriptions SET model_simulated = simulated WHERE model_simulated IS NULL;
UPDATE urs_references SET model_simulated = simulated WHERE model_simulated IS NULL;

-- Verdicts: `simulated` was model OR judge (OR, in the cross grid, the reference model). Not simulated:
-- neither side is. Otherwise the model's flag is its answers' and the judge's is the flag of its calls in
-- the cost ledger (the journal's `simulated`: that call went to the simulator) or of its verdicts already
-- flagged; a real model leaves the judge as the simulated side.
CREATE OR REPLACE TEMP TABLE upgrade_model_flags AS
    SELECT model, bool_or(model_simulated) AS flag FROM generations WHERE model_simulated IS NOT NULL GROUP BY model;
CREATE OR REPLACE TEMP TABLE upgrade_judge_flags AS
    SELECT judge, bool_or(flag) AS flag FROM (
        SELECT judge, simulated AS flag FROM llm_ledger WHERE judge <> ''
        UNION ALL SELECT judge, judge_simulated FROM creation_pairwise_judgments WHERE judge_simulated IS NOT NULL
        UNION ALL SELECT judge, judge_simulated FROM creation_vfs_judgments WHERE judge_simulated IS NOT NULL
        UNION ALL SELECT judge, judge_simulated FROM mmmt_if_autorater_judgments WHERE judge_simulated IS NOT NULL
        UNION ALL SELECT judge, judge_simulated FROM urs_judgments WHERE judge_simulated IS NOT NULL
    ) GROUP BY judge;

UPDATE creation_pairwise_judgments SET model_simulated = FALSE, judge_simulated = FALSE
    WHERE model_simulated IS NULL AND NOT simulated;
UPDATE creation_pairwise_judgments t SET model_simulated = m.flag FROM upgrade_model_flags m
    WHERE t.model_simulated IS NULL AND t.model = m.model;
UPDATE creation_pairwise_judgments t SET judge_simulated = j.flag FROM upgrade_judge_flags j
    WHERE t.judge_simulated IS NULL AND t.judge = j.judge;
UPDATE creation_pairwise_judgments SET judge_simulated = TRUE
    WHERE judge_simulated IS NULL AND simulated AND model_simulated = FALSE;

UPDATE creation_vfs_judgments SET model_simulated = FALSE, judge_simulated = FALSE
    WHERE model_simulated IS NULL AND NOT simulated;
UPDATE creation_vfs_judgments t SET model_simulated = m.flag FROM upgrade_model_flags m
    WHERE t.model_simulated IS NULL AND t.model = m.model;
UPDATE creation_vfs_judgments t SET judge_simulated = j.flag FROM upgrade_judge_flags j
    WHERE t.judge_simulated IS NULL AND t.judge = j.judge;
UPDATE creation_vfs_judgments SET judge_simulated = TRUE
    WHERE judge_simulated IS NULL AND simulated AND model_simulated = FALSE;

UPDATE mmmt_if_autorater_judgments SET model_simulated = FALSE, judge_simulated = FALSE
    WHERE model_simulated IS NULL AND NOT simulated;
UPDATE mmmt_if_autorater_judgments t SET model_simulated = m.flag FROM upgrade_model_flags m
    WHERE t.model_simulated IS NULL AND t.model = m.model;
UPDATE mmmt_if_autorater_judgments t SET judge_simulated = j.flag FROM upgrade_judge_flags j
    WHERE t.judge_simulated IS NULL AND t.judge = j.judge;
UPDATE mmmt_if_autorater_judgments SET judge_simulated = TRUE
    WHERE judge_simulated IS NULL AND simulated AND model_simulated = FALSE;

UPDATE urs_judgments SET model_simulated = FALSE, judge_simulated = FALSE
    WHERE model_simulated IS NULL AND NOT simulated;
UPDATE urs_judgments t SET model_simulated = m.flag FROM upgrade_model_flags m
    WHERE t.model_simulated IS NULL AND t.model = m.model;
UPDATE urs_judgments t SET judge_simulated = j.flag FROM upgrade_judge_flags j
    WHERE t.judge_simulated IS NULL AND t.judge = j.judge;
UPDATE urs_judgments SET judge_simulated = TRUE
    WHERE judge_simulated IS NULL AND simulated AND model_simulated = FALSE;

-- The cross grid: the reference model's flag counts in `simulated` only, so a real model and reference leave
-- the judge as the simulated side.
UPDATE urs_cross_judgments SET model_simulated = FALSE, judge_simulated = FALSE
    WHERE model_simulated IS NULL AND NOT simulated;
UPDATE urs_cross_judgments t SET model_simulated = m.flag FROM upgrade_model_flags m
    WHERE t.model_simulated IS NULL AND t.model = m.model;
UPDATE urs_cross_judgments t SET judge_simulated = j.flag FROM upgrade_judge_flags j
    WHERE t.judge_simulated IS NULL AND t.judge = j.judge;
UPDATE urs_cross_judgments t SET judge_simulated = TRUE FROM upgrade_model_flags r
    WHERE t.judge_simulated IS NULL AND t.simulated AND t.model_simulated = FALSE
      AND r.model = t.reference_model AND NOT r.flag;

DROP TABLE upgrade_model_flags;
DROP TABLE upgrade_judge_flags;
