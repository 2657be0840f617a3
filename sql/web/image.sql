-- One normalized image by content hash.
SELECT mime, data FROM images WHERE sha256 = ?;
