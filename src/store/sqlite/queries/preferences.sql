-- Preferences: recipients' opt-outs, the worker's send-time check and server secrets (the
-- suppression list is suppressions.sql). The same statement names as the PostgreSQL driver's preferences.sql.

-- name: opt_out_insert
-- An opt-out already recorded keeps its time and source: changes = 0.
-- params: @tenant_id, @recipient_id, @channel, @purpose, @source, @now
INSERT INTO recipient_preferences (tenant_id, recipient_id, channel, purpose, source, opted_out_at)
VALUES (@tenant_id, @recipient_id, @channel, @purpose, @source, @now)
ON CONFLICT (tenant_id, recipient_id, channel, purpose) DO NOTHING;

-- name: opt_outs_delete_others
-- Removes the recipient's opt-outs whose `channel|purpose` is not in @keep.
-- params: @tenant_id, @recipient_id, @keep (JSON array of 'channel|purpose')
DELETE FROM recipient_preferences
WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id
  AND channel || '|' || purpose NOT IN (SELECT value FROM json_each(@keep));

-- name: opt_outs_list
-- params: @tenant_id, @recipient_id
SELECT channel, purpose, source, opted_out_at FROM recipient_preferences
WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id
ORDER BY channel, purpose;

-- name: sendability_of
-- The send-time check for a claimed batch: one row per delivery and opt-out of its recipient
-- that names its channel or every channel (one row with NULL opt columns when none does), with
-- the suppression of its destination, a STOP its number sent (keyword_suppressions; not for that
-- STOP's own confirmation, the reply whose group is 'inb:' + its incoming message id), and the recipient's time zone for quiet hours (the
-- notification's own recipient.time_zone, kept in recipient_json, else the stored profile's;
-- NULL: the tenant's). Primary-key lookups only
-- (suppressions, keyword_suppressions, recipient_preferences, recipients).
-- params: @ids (JSON array of delivery ids)
SELECT d.id, d.purpose, d.channel, n.recipient_id, s.reason AS suppression, k.keyword AS keyword_stop,
       p.channel AS opt_channel, p.purpose AS opt_purpose, COALESCE(json_extract(n.recipient_json, '$.time_zone'), r.time_zone) AS time_zone
FROM deliveries d
JOIN notifications n ON n.id = d.notification_id
LEFT JOIN recipients r ON r.tenant_id = d.tenant_id AND r.id = n.recipient_id
LEFT JOIN suppressions s ON s.tenant_id = d.tenant_id AND s.channel = d.channel AND s.destination = d.destination
LEFT JOIN keyword_suppressions k ON k.tenant_id = d.tenant_id AND k.channel = d.channel AND k.destination = d.destination
                                AND n.group_key <> ('inb:' || k.inbound_id)
LEFT JOIN recipient_preferences p ON p.tenant_id = d.tenant_id AND p.recipient_id = n.recipient_id AND p.channel IN ('*', d.channel)
WHERE d.id IN (SELECT value FROM json_each(@ids));

-- name: server_secret_insert
-- The first process to ask stores its value; later ones change nothing.
-- params: @name, @value, @now
INSERT INTO server_secrets (name, value, created_at) VALUES (@name, @value, @now)
ON CONFLICT (name) DO NOTHING;

-- name: server_secret_get
-- params: @name
SELECT value FROM server_secrets WHERE name = @name;
