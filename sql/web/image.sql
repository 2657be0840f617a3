-- One normalized image by content hash.
SELECT sha256, mime, width, height, data FROM images WHERE sha256 = ?;
