-- The bytes of the pictures asked for (?: a list of sha256). A semi-join, not list_contains: DuckDB evaluates
-- list_contains per row with the pictures loaded, and held gigabytes for a few dozen pictures.
SELECT sha256, data FROM images WHERE sha256 IN (SELECT unnest(?));
