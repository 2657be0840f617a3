-- What was imported, from which files, and how many judgments did not parse at the source.
-- files: how many files the import read.
-- human_labels: human labels imported.
-- preferences: judge preferences imported.
-- notes: what the importer noted about the source.
-- imported_at: when it was imported (UTC).
CREATE OR REPLACE VIEW interop_imported_sources AS
SELECT source, importer, dataset, baseline, len(files) AS files, judgments, parse_failures, human_labels,
       preferences, notes, imported_at
FROM interop_imports
ORDER BY source;
