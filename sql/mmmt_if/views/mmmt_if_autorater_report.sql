-- MMMT-IF autorater: per judge and model, parse failures (failed calls apart) and mean scores,
-- next to the programmatic PIF and the preference score of the same responses.
-- failed_calls: autorater calls that failed.
-- mean_instruction_following: mean of the autorater's instruction-following score.
-- judgments: autorater calls that answered.
-- mean_overall_quality: mean of the autorater's overall-quality score.
-- mean_pif: mean PIF of the judged responses.
-- mean_preference: mean preference score ((8 criteria + 20·PIF) / 28) of those responses.
CREATE OR REPLACE VIEW mmmt_if_autorater_report AS
SELECT j.judge, j.model, j.variant,
       count(*) FILTER (WHERE j.error IS NULL) AS judgments,
       count(*) FILTER (WHERE j.error IS NULL AND NOT j.parse_ok) AS parse_failures,
       count(*) FILTER (WHERE j.error IS NOT NULL) AS failed_calls,
       avg(j.instruction_following) AS mean_instruction_following,
       avg(j.overall_quality) AS mean_overall_quality,
       avg(p.pif) AS mean_pif,
       avg(p.preference) AS mean_preference
FROM mmmt_if_autorater_judgments j
LEFT JOIN mmmt_if_preference_scores p
  ON p.judge = j.judge AND p.model = j.model AND p.variant = j.variant AND p.chat_id = j.chat_id
 AND p.turn = j.turn AND p.sample_index = j.sample_index
GROUP BY j.judge, j.model, j.variant
ORDER BY j.judge, j.variant, mean_preference DESC NULLS LAST;
