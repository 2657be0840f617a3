-- People's text in the game logs: who asked, what they asked, what the model answered.
SELECT 'gap_marks/' || session_id || '/' || CAST(image_order AS VARCHAR) || '/' || CAST(question_index AS VARCHAR) AS location,
       player_id, question, model_answer
FROM gap_marks
