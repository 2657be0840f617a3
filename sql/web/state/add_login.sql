-- A signed-in browser, recorded only if the token it signed in with is still the person's.
-- Parameters: login_sha256, created_at, handle, token_sha256.
INSERT INTO logins
SELECT ?, handle, ? FROM people
WHERE handle = ? AND token_sha256 = ?;
