-- Content type of each picture asked for (?: a list of sha256), without reading the pictures' bytes.
SELECT sha256, mime FROM images WHERE sha256 IN (SELECT unnest(?));
