-- name: challenge_lock
-- Serializes the writers of one challenge until commit, so a generation check and its
-- supersede cannot interleave with another generation's.
-- params: $1 tenant_id, $2 group_key
SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0));

-- name: challenge_pending_older
-- Pending deliveries of older generations of one challenge: what a new generation supersedes.
-- params: $1 tenant_id, $2 group_key, $3 generation
SELECT d.id, d.state, d.attempt_count, d.lease_version, d.expires_at, d.next_attempt_at, d.channel, d.purpose
FROM deliveries d JOIN notifications n ON n.id = d.notification_id
WHERE n.tenant_id = $1 AND n.group_key = $2 AND n.generation < $3
  AND d.state IN ('ready', 'retryable')
ORDER BY d.id
FOR UPDATE OF d;
