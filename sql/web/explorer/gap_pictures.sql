-- Analyst server only: the game's pictures with their set, marks, planted answers and caught ones, and the
-- questions kept from them, for the picture list.
SELECT g.image_id, g.image_set,
       (SELECT count(*) FROM gap_marks m WHERE m.image_id = g.image_id) AS marks,
       (SELECT count(*) FROM gap_marks m WHERE m.image_id = g.image_id AND m.instructed_wrong) AS planted,
       (SELECT count(*) FROM gap_marks m WHERE m.image_id = g.image_id AND m.instructed_wrong
                                            AND m.player_mark = 'wrong') AS caught,
       (SELECT count(*) FROM gap_adversarial_questions k WHERE k.image_id = g.image_id) AS kept,
       (SELECT count(*) FROM gap_vqa_items v WHERE v.image_id = g.image_id) AS vqa_items
FROM gap_images g
ORDER BY g.image_set, g.image_id;
