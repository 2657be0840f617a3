-- Two judges compared item by item (Creation: each model × item × order both judged; the units: table
-- comparison_judge_items), per model and over all models (model = 'all'). Counted over the units both
-- parsed: the candidate's wins and losses in each judge's verdicts and their deltas (a minus b), the flips
-- (one judge has the candidate win where the other has it lose), agreement = share with the same result
-- (win/tie/loss), exact_agreement = share with the same five-point verdict. unparsed_a / unparsed_b: units
-- only the other judge parsed. Every pair both ways round.
WITH pairs AS (
    SELECT coalesce(model, 'all') AS model, judge_a, judge_b, count(*) AS units,
           count_if(result_a IS NOT NULL AND result_b IS NOT NULL) AS compared,
           count_if(result_b IS NOT NULL AND result_a = 'win') AS wins_a,
           count_if(result_a IS NOT NULL AND result_b = 'win') AS wins_b,
           count_if(result_b IS NOT NULL AND result_a = 'loss') AS losses_a,
           count_if(result_a IS NOT NULL AND result_b = 'loss') AS losses_b,
           count_if(result_a = 'win' AND result_b = 'loss') AS a_won_b_lost,
           count_if(result_a = 'loss' AND result_b = 'win') AS b_won_a_lost,
           count_if(result_a = result_b) AS same_result,
           count_if(verdict_a = verdict_b) AS same_verdict,
           count_if(result_a IS NULL AND result_b IS NOT NULL) AS unparsed_a,
           count_if(result_b IS NULL AND result_a IS NOT NULL) AS unparsed_b
    FROM comparison_judge_items
    GROUP BY GROUPING SETS ((model, judge_a, judge_b), (judge_a, judge_b))
),
both_ways AS (
    SELECT model, judge_a, judge_b, units, compared, wins_a, wins_b, losses_a, losses_b, a_won_b_lost,
           b_won_a_lost, same_result, same_verdict, unparsed_a, unparsed_b FROM pairs
    UNION ALL
    SELECT model, judge_b, judge_a, units, compared, wins_b, wins_a, losses_b, losses_a, b_won_a_lost,
           a_won_b_lost, same_result, same_verdict, unparsed_b, unparsed_a FROM pairs
)
SELECT model, judge_a, judge_b, compared, wins_a, wins_b, wins_a - wins_b AS win_delta,
       losses_a, losses_b, losses_a - losses_b AS loss_delta, a_won_b_lost, b_won_a_lost,
       a_won_b_lost + b_won_a_lost AS flipped, (same_result / nullif(compared, 0))::DOUBLE AS agreement,
       (same_verdict / nullif(compared, 0))::DOUBLE AS exact_agreement, unparsed_a, unparsed_b, units
FROM both_ways
ORDER BY model = 'all' DESC, model, judge_a, judge_b
