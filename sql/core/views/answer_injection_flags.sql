-- Which models wrote judge-format strings (verdict tokens, score lines, score dicts) into their answers,
-- per benchmark (benchwright.answer_injection). The leaderboards join this as flagged_injection.
-- Its name sorts before the views that use it: views are created in file-name order.
-- answers_with_injection: answers with at least one judge-format string.
-- answers: answers the model gave (failed calls apart).
-- flagged_injection: the model wrote judge-format strings into at least one answer.
CREATE OR REPLACE VIEW answer_injection_flags AS
SELECT benchmark, model,
       count(*) FILTER (WHERE injection_kinds IS NOT NULL) AS answers_with_injection,
       count(*) AS answers,
       count(*) FILTER (WHERE injection_kinds IS NOT NULL) > 0 AS flagged_injection
FROM generations
WHERE response IS NOT NULL
GROUP BY benchmark, model;
