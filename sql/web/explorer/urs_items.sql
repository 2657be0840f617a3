-- URS items with how many answers and judgments each has, for the item list.
SELECT i.item_id, i.intent, i.language, i.question AS instruction, 0 AS images,
       (SELECT count(*) FROM generations g WHERE g.benchmark = 'urs' AND g.item_id = i.item_id) AS answers,
       (SELECT count(*) FROM urs_judgments j WHERE j.item_id = i.item_id) AS judgments
FROM urs_items i
ORDER BY i.item_id;
