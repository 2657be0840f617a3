-- Game-log lines stored as marks and lines quarantined, over every file read so far.
SELECT (SELECT count(*) FROM gap_marks) AS marks,
       (SELECT count(*) FROM gap_log_quarantine) AS quarantined;
