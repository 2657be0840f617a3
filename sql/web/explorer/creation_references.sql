-- The baseline answers a Creation item's candidates are judged against.
SELECT baseline, answer, error, simulated FROM creation_references WHERE item_id = ? ORDER BY baseline;
