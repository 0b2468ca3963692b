-- Two-way SMS (migration 0026, docs/inbound.md): incoming messages, webhook event ids, keyword
-- suppressions, the phones' health reports. The same statement names as the PostgreSQL
-- driver's inbound.sql.

-- name: inbound_event_take
-- One event id per source; a second take of the same id changes nothing (changes = 0).
-- params: @source, @event_id, @now
INSERT INTO inbound_event_ids (source, event_id, created_at) VALUES (@source, @event_id, @now)
ON CONFLICT (source, event_id) DO NOTHING;

-- name: inbound_insert
-- A message already recorded for this account and external id changes nothing (changes = 0).
-- params: @id, @tenant_id, @provider_account, @source, @external_id, @device_id, @sim_number, @kind, @sender_hash, @content_sealed, @keyword, @reply_to_notification_id, @received_at, @now
INSERT INTO inbound_messages (id, tenant_id, provider_account, source, external_id, device_id, sim_number, kind, sender_hash,
                              content_sealed, keyword, reply_to_notification_id, received_at, recorded_at)
VALUES (@id, @tenant_id, @provider_account, @source, @external_id, @device_id, @sim_number, @kind, @sender_hash,
        @content_sealed, @keyword, @reply_to_notification_id, @received_at, @now)
ON CONFLICT (provider_account, external_id) DO NOTHING;

-- name: inbound_last_notification
-- The newest SMS notification of the account to this number (in clear, or masked to its hash)
-- among the account's last @scan deliveries: bounded, on deliveries_list_account, so a reply
-- never scans a busy account's whole history. `id` orders the answers of several tenants.
-- params: @tenant_id, @provider_account, @destination, @destination_hash, @scan
SELECT notification_id, id FROM (
  SELECT notification_id, channel, destination, destination_hash, id FROM deliveries
  WHERE tenant_id = @tenant_id AND provider_account = @provider_account
  ORDER BY id DESC LIMIT @scan
) recent
WHERE channel = 'sms' AND (destination = @destination OR destination_hash = @destination_hash)
ORDER BY id DESC LIMIT 1;

-- name: keyword_suppression_insert
-- An entry already there (an earlier STOP) is kept as it was.
-- params: @tenant_id, @destination, @keyword, @provider_account, @inbound_id, @now
INSERT INTO keyword_suppressions (tenant_id, channel, destination, keyword, provider_account, inbound_id, created_at)
VALUES (@tenant_id, 'sms', @destination, @keyword, @provider_account, @inbound_id, @now)
ON CONFLICT (tenant_id, channel, destination) DO NOTHING;

-- name: keyword_suppression_delete
-- params: @tenant_id, @destination
DELETE FROM keyword_suppressions WHERE tenant_id = @tenant_id AND channel = 'sms' AND destination = @destination;

-- name: keyword_suppressions_of
-- params: @tenant_id, @destinations (a JSON array)
SELECT * FROM keyword_suppressions
WHERE tenant_id = @tenant_id AND channel = 'sms' AND destination IN (SELECT value FROM json_each(@destinations));

-- name: keyword_suppressions_list
-- params: @tenant_id, @limit
SELECT * FROM keyword_suppressions WHERE tenant_id = @tenant_id ORDER BY created_at DESC, destination LIMIT @limit;

-- name: inbound_get
-- params: @tenant_id, @id
SELECT * FROM inbound_messages WHERE tenant_id = @tenant_id AND id = @id;

-- name: inbound_list
-- Newest first; every filter optional (NULL: any); a page continues after (@after_at, @after_id).
-- params: @tenant_id, @provider_account, @device_id, @sender_hash, @since, @until, @after_at, @after_id, @limit
SELECT * FROM inbound_messages
WHERE tenant_id = @tenant_id
  AND (@provider_account IS NULL OR provider_account = @provider_account)
  AND (@device_id IS NULL OR device_id = @device_id)
  AND (@sender_hash IS NULL OR sender_hash = @sender_hash)
  AND (@since IS NULL OR received_at >= @since)
  AND (@until IS NULL OR received_at < @until)
  AND (@after_at IS NULL OR received_at < @after_at OR (received_at = @after_at AND id < @after_id))
ORDER BY received_at DESC, id DESC
LIMIT @limit;

-- name: inbound_content_due
-- params: @before, @limit
SELECT id FROM inbound_messages WHERE content_sealed IS NOT NULL AND recorded_at < @before ORDER BY recorded_at LIMIT @limit;

-- name: inbound_erase_content
-- params: @ids (a JSON array), @now
UPDATE inbound_messages SET content_sealed = NULL, content_erased_at = @now
WHERE content_sealed IS NOT NULL AND id IN (SELECT value FROM json_each(@ids));

-- name: device_health_insert
-- A second report at the same millisecond is the same report.
-- params: @device_id, @at, @battery_percent, @charging, @internet, @transports, @cellular, @signal, @failed_last_hour, @app_version
INSERT INTO device_health_samples (device_id, at, battery_percent, charging, internet, transports, cellular, signal, failed_last_hour, app_version)
VALUES (@device_id, @at, @battery_percent, @charging, @internet, @transports, @cellular, @signal, @failed_last_hour, @app_version)
ON CONFLICT (device_id, at) DO NOTHING;

-- name: device_health_latest
-- params: @device_ids (a JSON array)
SELECT s.* FROM device_health_samples s
JOIN (SELECT device_id, MAX(at) AS at FROM device_health_samples
      WHERE device_id IN (SELECT value FROM json_each(@device_ids)) GROUP BY device_id) m
  ON m.device_id = s.device_id AND m.at = s.at;

-- name: device_health_history
-- params: @device_id, @since
SELECT * FROM device_health_samples WHERE device_id = @device_id AND at >= @since ORDER BY at;

-- name: inbound_events_prune
-- params: @before, @limit
DELETE FROM inbound_event_ids WHERE rowid IN (SELECT rowid FROM inbound_event_ids WHERE created_at < @before ORDER BY created_at LIMIT @limit);

-- name: device_health_prune
-- params: @before, @limit
DELETE FROM device_health_samples WHERE rowid IN (SELECT rowid FROM device_health_samples WHERE at < @before ORDER BY at LIMIT @limit);
