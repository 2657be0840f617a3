-- Creation items with how many answers and judgments each has, for the item list.
SELECT i.item_id, i.category, i.task, i.instruction, len(i.image_hashes) AS images,
       (SELECT count(*) FROM generations g WHERE g.benchmark = 'creation' AND g.item_id = i.item_id) AS answers,
       (SELECT count(*) FROM creation_pairwise_judgments j WHERE j.item_id = i.item_id) AS judgments
FROM creation_items i
ORDER BY i.item_id;
