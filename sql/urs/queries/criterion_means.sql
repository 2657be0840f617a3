-- Mean of each intent criterion's score (benchwright.urs.metrics.criterion_means, the same rows in the same
-- order) per judge × model × intent × language and their 'all' margins, over parsed judgments whose call
-- returned. criterion_scores is the stored JSON {criterion: score} (the final score is not in it).
WITH parsed AS (
    SELECT judge, model, intent, language, CAST(criterion_scores AS JSON) AS scores
    FROM urs_judgments
    WHERE error IS NULL AND parse_ok AND final_score IS NOT NULL AND criterion_scores IS NOT NULL
), criteria AS (
    SELECT judge, model, intent, language, unnest(json_keys(scores)) AS criterion, scores
    FROM parsed
), scored AS (
    SELECT judge, model, intent, language, criterion,
           CAST(json_extract(scores, '$."' || criterion || '"') AS DOUBLE) AS score  -- a panel's may be a mean
    FROM criteria
    WHERE criterion <> 'final'
)
SELECT judge, model,
       CASE WHEN grouping(intent) = 1 THEN 'all' ELSE intent END AS intent,
       CASE WHEN grouping(language) = 1 THEN 'all' ELSE language END AS language,
       criterion, avg(score) AS mean_score, count(*) AS n
FROM scored
WHERE score IS NOT NULL
GROUP BY GROUPING SETS ((judge, model, criterion), (judge, model, language, criterion),
                        (judge, model, intent, criterion), (judge, model, intent, language, criterion))
ORDER BY judge, model, grouping(intent) DESC, intent, grouping(language) DESC, language, criterion
