-- Each model's answer to one GAP-VQA item and each judge's score of it, with the judge's own text.
SELECT model, judge, answer, answer_error, score, parse_ok, parse_problem, judge_error AS error, raw_text
FROM gap_score_judgments WHERE item_id = ?
ORDER BY model, judge;
