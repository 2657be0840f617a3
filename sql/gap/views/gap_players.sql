-- GAP players by reliability P(M=0 | H=0) with their points.
-- player_id: the player's id in the game logs.
-- planted_total: marks on answers the model was told to get wrong.
-- planted_marked_wrong: those the player marked Wrong.
-- honest_total: marks on tainted pictures' answers the model was not told to get wrong.
-- honest_marked_wrong: those the player marked Wrong.
-- points: the player's points over all weeks.
CREATE OR REPLACE VIEW gap_players AS
SELECT r.player_id, r.reliability, r.planted_total, r.planted_marked_wrong, r.honest_total, r.honest_marked_wrong,
       coalesce(sum(l.points), 0) AS points
FROM gap_player_reliability r LEFT JOIN gap_weekly_leaderboard l USING (player_id)
GROUP BY ALL
ORDER BY r.reliability DESC;
