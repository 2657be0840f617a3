-- Every stored game mark, in the order the log files gave them.
SELECT * FROM gap_marks ORDER BY file_sha256, line_no;
