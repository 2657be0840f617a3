-- Every pairwise verdict on one Creation item, both orders, with the judge's own text.
SELECT model, judge, judge_order, candidate_position, verdict, outcome, parse_ok, parse_problem, error, raw_text, source
FROM creation_pairwise_judgments WHERE item_id = ?
ORDER BY model, judge, source, judge_order;
