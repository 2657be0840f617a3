-- The five most frequent reasons game-log lines were quarantined, with their counts.
SELECT reason, count(*) AS n
FROM gap_log_quarantine
GROUP BY reason
ORDER BY n DESC
LIMIT 5;
