-- Every URS item, in item order (the order requests are planned in).
SELECT * FROM urs_items ORDER BY item_id;
