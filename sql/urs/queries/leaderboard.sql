-- URS leaderboard (benchwright.urs.metrics.leaderboard, the same rows in the same order): mean parsed final
-- score per judge × model × intent × language, with 'all' margins for intent, language and both. Only
-- judgments whose call returned; n counts the parsed ones, parse_failures the rest.
WITH judged AS (
    SELECT judge, model, intent, language, final_score, coalesce(parse_ok AND final_score IS NOT NULL, false) AS parsed
    FROM urs_judgments
    WHERE error IS NULL
)
SELECT judge, model,
       CASE WHEN grouping(intent) = 1 THEN 'all' ELSE intent END AS intent,
       CASE WHEN grouping(language) = 1 THEN 'all' ELSE language END AS language,
       avg(final_score) FILTER (WHERE parsed) AS final_score,
       count(*) FILTER (WHERE parsed) AS n,
       count(*) FILTER (WHERE NOT parsed) AS parse_failures
FROM judged
GROUP BY GROUPING SETS ((judge, model), (judge, model, language), (judge, model, intent),
                        (judge, model, intent, language))
ORDER BY judge, model, grouping(intent) DESC, intent, grouping(language) DESC, language
