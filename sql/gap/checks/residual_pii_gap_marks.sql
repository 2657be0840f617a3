-- People's text in the game logs: who played, what they asked, what the model answered, where it came
-- from, and the quarantined lines kept for the operator. One row per text; the location names its column.
SELECT 'gap_marks/' || mark || '/' || field AS location, text
FROM (SELECT session_id || '/' || CAST(image_order AS VARCHAR) || '/' || CAST(question_index AS VARCHAR) AS mark,
             session_id, player_id, question, model_answer, file_name
      FROM gap_marks)
     UNPIVOT (text FOR field IN (session_id, player_id, question, model_answer, file_name))
UNION ALL
SELECT 'gap_log_quarantine/' || entry || '/' || field AS location, text
FROM (SELECT file_name || ':' || CAST(line_no AS VARCHAR) AS entry, file_name, reason, line FROM gap_log_quarantine)
     UNPIVOT (text FOR field IN (file_name, reason, line))
