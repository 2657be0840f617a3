-- Answered pairwise judgments of every source (ours and imported), what the Bradley–Terry ratings read.
-- Ordered: a fit on a flat ridge (style columns collinear with the models in a bootstrap round) ends where the
-- optimiser's sums lead it, so the same rows in another order (a forced re-run writes partitions in another
-- order) could give other bounds.
SELECT source, model, judge, item_id, judge_order, candidate_position, verdict, parse_ok
FROM creation_pairwise_judgments
WHERE error IS NULL
ORDER BY source, judge, model, item_id, judge_order, candidate_position
