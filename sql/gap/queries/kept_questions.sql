-- The adversarial questions kept for GAP-VQA, each (picture, question) once, in a fixed order.
SELECT DISTINCT image_id, question FROM gap_adversarial_questions ORDER BY image_id, question;
