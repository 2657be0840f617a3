-- Every URS judgment of one item: final and per-criterion scores, with the judge's own text.
SELECT model, judge, reference_model, final_score, criterion_scores, parse_ok, parse_problem, error, raw_text, source
FROM urs_judgments WHERE item_id = ?
ORDER BY model, judge, source;
