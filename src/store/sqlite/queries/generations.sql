-- name: challenge_pending_older
-- Pending deliveries of older generations of one challenge: what a new generation supersedes.
-- params: @tenant_id, @group_key, @generation
SELECT d.id, d.state, d.attempt_count, d.lease_version, d.expires_at, d.next_attempt_at, d.channel, d.purpose
FROM deliveries d JOIN notifications n ON n.id = d.notification_id
WHERE n.tenant_id = @tenant_id AND n.group_key = @group_key AND n.generation < @generation
  AND d.state IN ('ready', 'retryable')
ORDER BY d.id;
