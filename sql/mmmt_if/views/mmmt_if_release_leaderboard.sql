-- Imported MMMT-IF releases: per source and model, the Bradley–Terry rating of the preference-score
-- outcomes (8 criteria + 20·PIF, per turn) with its bootstrap bounds over contexts and its rank by upper bound
-- (1 + the models clearly above it), and the mean PIF of its responses.
-- wins, ties, losses: the model's preference-score outcomes against the other models.
-- responses: the model's responses in the release.
-- rating: the Bradley–Terry rating of its preference-score outcomes.
-- rating_lower, rating_upper: its bootstrap bounds over contexts.
-- pif: mean PIF of the model's responses in the release.
-- rank: 1 + the models whose lower bound is above this model's upper bound (clearly better).
CREATE OR REPLACE VIEW mmmt_if_release_leaderboard AS
SELECT r.source, r.rank, r.model, round(r.rating, 1) AS rating, round(r.rating_lower, 1) AS rating_lower,
       round(r.rating_upper, 1) AS rating_upper, r.wins, r.ties, r.losses, round(p.pif, 3) AS pif, p.responses
FROM mmmt_if_release_ratings r
JOIN (SELECT source, model, avg(pif) AS pif, count(*) AS responses
      FROM mmmt_if_release_responses GROUP BY source, model) p USING (source, model)
ORDER BY r.source, r.rating DESC;
