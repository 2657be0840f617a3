-- Two candidates compared item by item under one judge (Creation; the items: table comparison_model_items).
-- Counted over the items where both have a result: wins and losses against the baseline, their deltas
-- (a minus b), the flips (one won where the other lost), agreement = share of items with the same result,
-- mean_value_delta = mean of (a's value − b's) on MW -2 .. MB 2. Every pair both ways round.
WITH pairs AS (
    SELECT judge, model_a, model_b, count(*) AS items,
           count_if(result_a IS NOT NULL AND result_b IS NOT NULL) AS compared,
           count_if(result_b IS NOT NULL AND result_a = 'win') AS wins_a,
           count_if(result_a IS NOT NULL AND result_b = 'win') AS wins_b,
           count_if(result_b IS NOT NULL AND result_a = 'loss') AS losses_a,
           count_if(result_a IS NOT NULL AND result_b = 'loss') AS losses_b,
           count_if(result_a = 'win' AND result_b = 'loss') AS a_won_b_lost,
           count_if(result_a = 'loss' AND result_b = 'win') AS b_won_a_lost,
           count_if(result_a = result_b) AS same_result,
           avg(value_a - value_b) AS mean_value_delta
    FROM comparison_model_items
    GROUP BY judge, model_a, model_b
),
both_ways AS (
    SELECT judge, model_a, model_b, items, compared, wins_a, wins_b, losses_a, losses_b,
           a_won_b_lost, b_won_a_lost, same_result, mean_value_delta FROM pairs
    UNION ALL
    SELECT judge, model_b, model_a, items, compared, wins_b, wins_a, losses_b, losses_a,
           b_won_a_lost, a_won_b_lost, same_result, -mean_value_delta FROM pairs
)
SELECT judge, model_a, model_b, compared, wins_a, wins_b, wins_a - wins_b AS win_delta,
       losses_a, losses_b, losses_a - losses_b AS loss_delta, a_won_b_lost, b_won_a_lost,
       a_won_b_lost + b_won_a_lost AS flipped, (same_result / nullif(compared, 0))::DOUBLE AS agreement,
       mean_value_delta, items
FROM both_ways
ORDER BY judge, model_a, model_b
