-- Everything a person can be asked to compare: Creation (baseline answer vs a candidate's) and
-- URS (two candidates' first samples for the same question). Only answers that exist.
WITH creation AS (
    SELECT DISTINCT 'creation' AS benchmark, g.item_id, r.baseline AS model_a, g.model AS model_b
    FROM generations g
    JOIN creation_references r ON r.item_id = g.item_id
    WHERE g.benchmark = 'creation' AND g.sample_index = 0 AND g.response IS NOT NULL
      AND r.answer IS NOT NULL AND g.model <> r.baseline
),
urs AS (
    SELECT DISTINCT 'urs' AS benchmark, a.item_id, a.model AS model_a, b.model AS model_b
    FROM generations a
    JOIN generations b ON b.benchmark = 'urs' AND b.item_id = a.item_id AND b.sample_index = 0 AND b.model > a.model
    WHERE a.benchmark = 'urs' AND a.sample_index = 0 AND a.response IS NOT NULL AND b.response IS NOT NULL
)
SELECT * FROM creation
UNION ALL
SELECT * FROM urs
ORDER BY benchmark, item_id, model_a, model_b;
