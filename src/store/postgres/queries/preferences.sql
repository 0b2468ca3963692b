-- Preferences: recipients' opt-outs, the worker's send-time check and server secrets (the
-- suppression list is suppressions.sql). The same statement names as the SQLite driver's preferences.sql.

-- name: opt_out_insert
-- An opt-out already recorded keeps its time and source: no row returned.
-- params: $1 tenant_id, $2 recipient_id, $3 channel, $4 purpose, $5 source, $6 now
INSERT INTO recipient_preferences (tenant_id, recipient_id, channel, purpose, source, opted_out_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (tenant_id, recipient_id, channel, purpose) DO NOTHING
RETURNING channel;

-- name: opt_outs_delete_others
-- Removes the recipient's opt-outs whose `channel|purpose` is not in $3.
-- params: $1 tenant_id, $2 recipient_id, $3 keep[] ('channel|purpose')
DELETE FROM recipient_preferences
WHERE tenant_id = $1 AND recipient_id = $2
  AND NOT (channel || '|' || purpose = ANY($3::text[]));

-- name: opt_outs_list
-- params: $1 tenant_id, $2 recipient_id
SELECT channel, purpose, source, opted_out_at FROM recipient_preferences
WHERE tenant_id = $1 AND recipient_id = $2
ORDER BY channel, purpose;

-- name: sendability_of
-- The send-time check for a claimed batch: one row per delivery and opt-out of its recipient
-- that names its channel or every channel (one row with NULL opt columns when none does), with
-- the suppression of its destination, a STOP its number sent (keyword_suppressions; not for that
-- STOP's own confirmation, the reply whose group is 'inb:' + its incoming message id), and the recipient's time zone for quiet hours (the
-- notification's own recipient.time_zone, kept in recipient_json, else the stored profile's;
-- NULL: the tenant's). Primary-key lookups only
-- (suppressions, keyword_suppressions, recipient_preferences, recipients).
-- params: $1 ids[]
SELECT d.id, d.purpose, d.channel, n.recipient_id, s.reason AS suppression, k.keyword AS keyword_stop,
       p.channel AS opt_channel, p.purpose AS opt_purpose, COALESCE(n.recipient_json::jsonb ->> 'time_zone', r.time_zone) AS time_zone
FROM deliveries d
JOIN notifications n ON n.id = d.notification_id
LEFT JOIN recipients r ON r.tenant_id = d.tenant_id AND r.id = n.recipient_id
LEFT JOIN suppressions s ON s.tenant_id = d.tenant_id AND s.channel = d.channel AND s.destination = d.destination
LEFT JOIN keyword_suppressions k ON k.tenant_id = d.tenant_id AND k.channel = d.channel AND k.destination = d.destination
                                AND n.group_key <> ('inb:' || k.inbound_id)
LEFT JOIN recipient_preferences p ON p.tenant_id = d.tenant_id AND p.recipient_id = n.recipient_id AND p.channel IN ('*', d.channel)
WHERE d.id = ANY($1::text[]);

-- name: server_secret_insert
-- The first process to ask stores its value; later ones change nothing.
-- params: $1 name, $2 value, $3 now
INSERT INTO server_secrets (name, value, created_at) VALUES ($1, $2, $3)
ON CONFLICT (name) DO NOTHING;

-- name: server_secret_get
-- params: $1 name
SELECT value FROM server_secrets WHERE name = $1;
