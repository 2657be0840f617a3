-- Migration of a state file written before handles were unique regardless of case: mark the later person of
-- every group of names that differ only in case as a twin (their rowid), keeping them out of the index's way.
UPDATE people SET twin = rowid
WHERE EXISTS (SELECT 1 FROM people AS earlier
              WHERE earlier.handle = people.handle COLLATE NOCASE AND earlier.rowid < people.rowid);
