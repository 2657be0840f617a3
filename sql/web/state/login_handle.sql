-- The person a login belongs to, while it is not older than the oldest login still allowed.
-- Parameters: login_sha256, oldest created_at.
SELECT handle FROM logins
WHERE login_sha256 = ? AND created_at >= ?;
