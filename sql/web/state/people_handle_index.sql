-- Handles unique regardless of case (twins excepted): a join is just the insert, and this index is the check.
-- Created after the migration (twins.sql), since an older file lacks the `twin` column until then.
CREATE UNIQUE INDEX IF NOT EXISTS people_handle_nocase ON people (handle COLLATE NOCASE, twin);
