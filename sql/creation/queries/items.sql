-- Every Creation item, in item order (the order requests are planned in).
SELECT * FROM creation_items ORDER BY item_id;
