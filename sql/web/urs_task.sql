-- What an annotator sees of a URS item: the question, its intent, the two candidates' answers.
-- Parameters: item_id, model_a, model_b.
SELECT i.question, i.intent, i.language,
       (SELECT response FROM generations WHERE benchmark = 'urs' AND item_id = i.item_id AND model = $2
          AND sample_index = 0 LIMIT 1) AS answer_a,
       (SELECT response FROM generations WHERE benchmark = 'urs' AND item_id = i.item_id AND model = $3
          AND sample_index = 0 LIMIT 1) AS answer_b
FROM urs_items i
WHERE i.item_id = $1;
