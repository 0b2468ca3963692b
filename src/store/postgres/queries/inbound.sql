-- Two-way SMS (migration 0026, docs/inbound.md): incoming messages, webhook event ids, keyword
-- suppressions, the phones' health reports. The same statement names as the SQLite
-- driver's inbound.sql.

-- name: inbound_event_take
-- One event id per source; a second take of the same id changes nothing (changes = 0).
-- params: $1 source, $2 event_id, $3 now
INSERT INTO inbound_event_ids (source, event_id, created_at) VALUES ($1, $2, $3)
ON CONFLICT (source, event_id) DO NOTHING;

-- name: inbound_insert
-- A message already recorded for this account and external id changes nothing (changes = 0).
-- params: $1 id, $2 tenant_id, $3 provider_account, $4 source, $5 external_id, $6 device_id, $7 sim_number, $8 kind, $9 sender_hash, $10 content_sealed, $11 keyword, $12 reply_to_notification_id, $13 received_at, $14 now
INSERT INTO inbound_messages (id, tenant_id, provider_account, source, external_id, device_id, sim_number, kind, sender_hash,
                              content_sealed, keyword, reply_to_notification_id, received_at, recorded_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
        $10, $11, $12, $13, $14)
ON CONFLICT (provider_account, external_id) DO NOTHING;

-- name: inbound_last_notification
-- The newest SMS notification of the account to this number (in clear, or masked to its hash)
-- among the account's last $5 deliveries: bounded, on deliveries_list_account, so a reply
-- never scans a busy account's whole history. `id` orders the answers of several tenants.
-- params: $1 tenant_id, $2 provider_account, $3 destination, $4 destination_hash, $5 scan
SELECT notification_id, id FROM (
  SELECT notification_id, channel, destination, destination_hash, id FROM deliveries
  WHERE tenant_id = $1 AND provider_account = $2
  ORDER BY id DESC LIMIT $5
) recent
WHERE channel = 'sms' AND (destination = $3 OR destination_hash = $4)
ORDER BY id DESC LIMIT 1;

-- name: keyword_suppression_insert
-- An entry already there (an earlier STOP) is kept as it was.
-- params: $1 tenant_id, $2 destination, $3 keyword, $4 provider_account, $5 inbound_id, $6 now
INSERT INTO keyword_suppressions (tenant_id, channel, destination, keyword, provider_account, inbound_id, created_at)
VALUES ($1, 'sms', $2, $3, $4, $5, $6)
ON CONFLICT (tenant_id, channel, destination) DO NOTHING;

-- name: keyword_suppression_delete
-- params: $1 tenant_id, $2 destination
DELETE FROM keyword_suppressions WHERE tenant_id = $1 AND channel = 'sms' AND destination = $2;

-- name: keyword_suppressions_of
-- params: $1 tenant_id, $2 destinations (text[])
SELECT * FROM keyword_suppressions
WHERE tenant_id = $1 AND channel = 'sms' AND destination IN (SELECT unnest($2::text[]));

-- name: keyword_suppressions_list
-- params: $1 tenant_id, $2 limit
SELECT * FROM keyword_suppressions WHERE tenant_id = $1 ORDER BY created_at DESC, destination LIMIT $2;

-- name: inbound_get
-- params: $1 tenant_id, $2 id
SELECT * FROM inbound_messages WHERE tenant_id = $1 AND id = $2;

-- name: inbound_list
-- Newest first; every filter optional (NULL: any); a page continues after ($7, $8).
-- params: $1 tenant_id, $2 provider_account, $3 device_id, $4 sender_hash, $5 since, $6 until, $7 after_at, $8 after_id, $9 limit
SELECT * FROM inbound_messages
WHERE tenant_id = $1
  AND ($2::text IS NULL OR provider_account = $2::text)
  AND ($3::text IS NULL OR device_id = $3::text)
  AND ($4::text IS NULL OR sender_hash = $4::text)
  AND ($5::bigint IS NULL OR received_at >= $5::bigint)
  AND ($6::bigint IS NULL OR received_at < $6::bigint)
  AND ($7::bigint IS NULL OR received_at < $7::bigint OR (received_at = $7::bigint AND id < $8::text))
ORDER BY received_at DESC, id DESC
LIMIT $9;

-- name: inbound_content_due
-- params: $1 before, $2 limit
SELECT id FROM inbound_messages WHERE content_sealed IS NOT NULL AND recorded_at < $1 ORDER BY recorded_at LIMIT $2;

-- name: inbound_erase_content
-- params: $1 ids (text[]), $2 now
UPDATE inbound_messages SET content_sealed = NULL, content_erased_at = $2
WHERE content_sealed IS NOT NULL AND id IN (SELECT unnest($1::text[]));

-- name: device_health_insert
-- A second report at the same millisecond is the same report.
-- params: $1 device_id, $2 at, $3 battery_percent, $4 charging, $5 internet, $6 transports, $7 cellular, $8 signal, $9 failed_last_hour, $10 app_version
INSERT INTO device_health_samples (device_id, at, battery_percent, charging, internet, transports, cellular, signal, failed_last_hour, app_version)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (device_id, at) DO NOTHING;

-- name: device_health_latest
-- params: $1 device_ids (text[])
SELECT s.* FROM device_health_samples s
JOIN (SELECT device_id, MAX(at) AS at FROM device_health_samples
      WHERE device_id IN (SELECT unnest($1::text[])) GROUP BY device_id) m
  ON m.device_id = s.device_id AND m.at = s.at;

-- name: device_health_history
-- params: $1 device_id, $2 since
SELECT * FROM device_health_samples WHERE device_id = $1 AND at >= $2 ORDER BY at;

-- name: inbound_events_prune
-- params: $1 before, $2 limit
DELETE FROM inbound_event_ids WHERE (source, event_id) IN (SELECT source, event_id FROM inbound_event_ids WHERE created_at < $1 ORDER BY created_at LIMIT $2);

-- name: device_health_prune
-- params: $1 before, $2 limit
DELETE FROM device_health_samples WHERE (device_id, at) IN (SELECT device_id, at FROM device_health_samples WHERE at < $1 ORDER BY at LIMIT $2);
