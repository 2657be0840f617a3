-- Answered pairwise judgments of every source (ours and imported), what the Bradley–Terry ratings read.
SELECT source, model, judge, item_id, judge_order, candidate_position, verdict, parse_ok
FROM creation_pairwise_judgments
WHERE error IS NULL
