-- What `dev.py run --limit anchors` prints at its end: each model's full-benchmark score estimated from its anchor
-- items (benchwright.anchors), with the 95 % interval and how many anchors it answered; best estimate first.
SELECT benchmark, judge, model,
       round(estimate, 1) AS estimated_score,
       round(estimate_low, 1) AS low,
       round(estimate_high, 1) AS high,
       anchors_answered || ' / ' || anchors AS anchors_answered
FROM anchor_estimates
ORDER BY benchmark, judge, estimate DESC, model
