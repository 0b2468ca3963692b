-- Devices: Android gateway phones, their logins and codes, offers, reports and heartbeat sweeps.
-- The same statement names as the SQLite driver's devices.sql.

-- name: gateway_login_insert
-- params: $1 login, $2 provider_account, $3 tenant_id, $4 password_hash, $5 now
INSERT INTO gateway_logins (login, provider_account, tenant_id, password_hash, created_at)
VALUES ($1, $2, $3, $4, $5);

-- name: gateway_login_get
-- params: $1 login
SELECT login, provider_account, tenant_id, password_hash FROM gateway_logins WHERE login = $1;

-- name: gateway_login_set_password
-- params: $1 login, $2 password_hash
UPDATE gateway_logins SET password_hash = $2 WHERE login = $1 RETURNING login;

-- name: login_code_insert
-- params: $1 code_hash, $2 login, $3 valid_until, $4 now
INSERT INTO gateway_login_codes (code_hash, login, valid_until, created_at) VALUES ($1, $2, $3, $4);

-- name: login_code_use
-- A code registers one phone, once, before it expires.
-- params: $1 code_hash, $2 now
UPDATE gateway_login_codes SET used_at = $2
WHERE code_hash = $1 AND used_at IS NULL AND valid_until > $2
RETURNING login;

-- name: device_insert
-- params: $1 id, $2 tenant_id, $3 provider_account, $4 login, $5 name, $6 token_hash, $7 sim_cards_json, $8 app_version, $9 now
INSERT INTO devices (id, tenant_id, provider_account, login, name, token_hash, sim_cards_json, app_version, created_at, last_seen_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9);

-- name: device_by_token
-- params: $1 token_hash
SELECT * FROM devices WHERE token_hash = $1;

-- name: device_get
-- params: $1 id
SELECT * FROM devices WHERE id = $1;

-- name: devices_list
-- params: $1 tenant_id (NULL: any), $2 provider_account (NULL: any)
SELECT * FROM devices
WHERE ($1::text IS NULL OR tenant_id = $1) AND ($2::text IS NULL OR provider_account = $2)
ORDER BY created_at, id;

-- name: device_update
-- params: $1 id, $2 sim_cards_json (NULL: unchanged), $3 app_version (NULL: unchanged)
UPDATE devices SET sim_cards_json = COALESCE($2::text, sim_cards_json), app_version = COALESCE($3::text, app_version)
WHERE id = $1
RETURNING id;

-- name: device_touch
-- Last seen moves forward only. A call after more than $3 ms of silence marks a return (the
-- heartbeat sweep is due) unless one is already waiting for its sweep; SET reads the old row.
-- params: $1 id, $2 now, $3 away
UPDATE devices
SET last_seen_at = GREATEST(last_seen_at, $2::bigint),
    returned_at = CASE WHEN returned_at IS NULL AND $2::bigint - last_seen_at > $3::bigint THEN $2::bigint ELSE returned_at END,
    away_since = CASE WHEN returned_at IS NULL AND $2::bigint - last_seen_at > $3::bigint THEN last_seen_at ELSE away_since END
WHERE id = $1
RETURNING last_seen_at, returned_at, away_since;

-- name: devices_returned
-- params: $1 limit
SELECT * FROM devices WHERE returned_at IS NOT NULL ORDER BY returned_at, id LIMIT $1;

-- name: device_return_check
-- Locks the device row for the sweep's transaction: two sweepers of one return queue here.
-- params: $1 id, $2 returned_at
SELECT tenant_id, provider_account FROM devices WHERE id = $1 AND returned_at = $2 FOR UPDATE;

-- name: device_return_clear
-- params: $1 id, $2 returned_at
UPDATE devices SET returned_at = NULL, away_since = NULL WHERE id = $1 AND returned_at = $2 RETURNING id;

-- name: offer_preferences
-- What a notification asks of its SMS offers: the device (metadata herald_device_id) and the SIM
-- (herald_sim_number), if any.
-- params: $1 delivery_id
SELECT n.metadata_json::jsonb ->> 'herald_device_id' AS device_id, n.metadata_json::jsonb ->> 'herald_sim_number' AS sim_number
FROM deliveries d JOIN notifications n ON n.id = d.notification_id WHERE d.id = $1;

-- name: device_loads
-- Per device of an account: offers not finished on the phone, and failures before sending.
-- params: $1 provider_account, $2 since
SELECT dv.id AS device_id,
  (SELECT COUNT(*) FROM device_offers o WHERE o.device_id = dv.id AND o.offered_at >= $2
     AND (o.state IN ('offered', 'pulled', 'reoffered') OR (o.state = 'reported' AND o.phone_state IN ('Pending', 'Processed')))) AS queue_depth,
  (SELECT COUNT(*) FROM device_offers o WHERE o.device_id = dv.id AND o.reported_at >= $2
     AND o.phone_state = 'Failed' AND NOT o.sent) AS recent_failures
FROM devices dv WHERE dv.provider_account = $1
ORDER BY dv.id;

-- name: offer_next_seq
-- The next offer of a delivery and the attempt it belongs to (the claim counted it already).
-- Locks the delivery row: one offer at a time per delivery.
-- params: $1 delivery_id
SELECT COALESCE((SELECT MAX(seq) FROM device_offers WHERE delivery_id = $1), 0) + 1 AS seq,
       attempt_count AS attempt_number
FROM deliveries WHERE id = $1 FOR UPDATE;

-- name: offer_insert
-- params: $1 message_id, $2 delivery_id, $3 seq, $4 attempt_number, $5 device_id, $6 provider_account, $7 sim_number, $8 priority, $9 valid_until, $10 now
INSERT INTO device_offers (message_id, delivery_id, seq, attempt_number, device_id, provider_account, state, sim_number, priority, valid_until, offered_at)
VALUES ($1, $2, $3, $4, $5, $6, 'offered', $7, $8, $9, $10)
RETURNING *;

-- name: offers_pull
-- The device's listed offers still valid, in the app's order (lifo: newest first; fifo: priority,
-- then oldest first, as the reference server orders), at most $3, marked pulled. SKIP LOCKED:
-- two connections of one phone pulling at once never get the same offer.
-- params: $1 device_id, $2 fifo (boolean), $3 limit, $4 now
UPDATE device_offers
SET state = 'pulled', pulled_at = COALESCE(pulled_at, $4::bigint), last_pulled_at = $4::bigint, pull_count = pull_count + 1
WHERE id IN (
  SELECT id FROM device_offers
  WHERE device_id = $1 AND state IN ('offered', 'reoffered') AND valid_until > $4::bigint
  ORDER BY CASE WHEN $2::boolean THEN -priority ELSE 0 END, CASE WHEN $2::boolean THEN id ELSE -id END
  LIMIT $3
  FOR UPDATE SKIP LOCKED)
RETURNING id;

-- name: offer_messages
-- What the phone needs to send the pulled offers: number, text, SIM, priority, validity, and
-- whether to ask for a delivery report (metadata herald_delivery_report, absent = yes).
-- params: $1 ids (offer ids)
SELECT o.id, o.message_id, o.sim_number, o.priority, o.valid_until, o.offered_at, d.destination, n.id AS notification_id, n.content_json,
       n.metadata_json::jsonb ->> 'herald_delivery_report' AS delivery_report
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id JOIN notifications n ON n.id = d.notification_id
WHERE o.id = ANY ($1::bigint[]);

-- name: offer_for_report
-- Locks the offer: two reports of one message fold one after the other.
-- params: $1 message_id, $2 device_id
SELECT id, state, phone_state, sent, phone_error FROM device_offers WHERE message_id = $1 AND device_id = $2 FOR UPDATE;

-- name: offer_record_report
-- params: $1 id, $2 phone_state, $3 phone_error, $4 sent, $5 now
UPDATE device_offers
SET state = 'reported', phone_state = $2, phone_error = COALESCE($3::text, phone_error), sent = $4,
    reported_at = $5, report_seq = report_seq + 1
WHERE id = $1;

-- name: reports_unapplied
-- Reports not yet written into their delivery, oldest first; a delivery in flight waits.
-- params: $1 limit
SELECT o.id AS offer_id, o.message_id, o.report_seq, o.phone_state, o.sent, o.phone_error, o.provider_account,
       o.attempt_number, (o.attempt_number = d.attempt_count) AS is_current,
       d.id AS delivery_id, d.state, d.terminal_reason, d.downstream_status, d.attempt_count, d.lease_version,
       d.expires_at, d.next_attempt_at, d.purpose, n.retry_ladder
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id JOIN notifications n ON n.id = d.notification_id
WHERE o.report_seq > o.applied_seq AND d.state <> 'submitting'
ORDER BY o.id
LIMIT $1;

-- name: report_delivery_apply
-- A report merged into its delivery, guarded by state, fencing token and downstream status
-- (null-safe); with $5 NULL only the downstream status (and ids, error code) change.
-- params: $1 id, $2 expect_state, $3 expect_lease_version, $4 expect_downstream, $5 to_state, $6 terminal_reason,
--         $7 next_attempt_at, $8 downstream_status, $9 provider_message_id, $10 last_error_code, $11 now
UPDATE deliveries
SET state = COALESCE($5::text, state),
    terminal_reason = CASE WHEN $5::text IS NULL THEN terminal_reason ELSE $6::text END,
    next_attempt_at = CASE WHEN $5::text IS NULL THEN next_attempt_at ELSE $7::bigint END,
    downstream_status = $8::text,
    confirmed_at = COALESCE(confirmed_at, CASE WHEN $8::text IN ('sent', 'delivered', 'read') THEN $11::bigint END),
    provider_message_id = COALESCE($9::text, provider_message_id),
    last_error_code = COALESCE($10::text, last_error_code),
    reconcile_at = NULL,
    updated_at = $11
WHERE id = $1 AND state = $2 AND lease_version = $3
  AND downstream_status IS NOT DISTINCT FROM $4::text
RETURNING tenant_id, notification_id, provider_account;

-- name: report_mark_applied
-- params: $1 id, $2 report_seq
UPDATE device_offers SET applied_seq = $2 WHERE id = $1 AND report_seq = $2 RETURNING id;

-- name: offer_current
-- The offer of a delivery's current attempt, found by Herald's reference.
-- params: $1 provider_account, $2 idempotency_key
SELECT o.* FROM deliveries d JOIN device_offers o ON o.delivery_id = d.id AND o.attempt_number = d.attempt_count
WHERE d.idempotency_key = $2 AND d.provider_account = $1
ORDER BY o.seq DESC LIMIT 1;

-- name: offer_withdraw
-- Only an offer no phone ever pulled: then it provably never reached one.
-- params: $1 id
UPDATE device_offers SET state = 'withdrawn' WHERE id = $1 AND state = 'offered' AND pulled_at IS NULL RETURNING id;

-- name: offers_reoffer
-- params: $1 ids (offer ids), $2 now
UPDATE device_offers SET state = 'reoffered', reoffered_at = $2, reoffer_count = reoffer_count + 1
WHERE id = ANY ($1::bigint[]) AND state IN ('pulled', 'reoffered')
RETURNING id, device_id;

-- name: device_message_get
-- params: $1 message_id
SELECT o.*, d.state AS delivery_state, d.terminal_reason, d.purpose, d.expires_at, (o.attempt_number = d.attempt_count) AS is_current
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id
WHERE o.message_id = $1;

-- name: delivery_offers
-- params: $1 delivery_id
SELECT o.*, d.state AS delivery_state, d.terminal_reason, d.purpose, d.expires_at, (o.attempt_number = d.attempt_count) AS is_current
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id
WHERE o.delivery_id = $1
ORDER BY o.seq;

-- name: device_messages_list
-- With current, only each message's current offer (one row per message; older offers are in its timeline).
-- params: $1 device_id, $2 state (NULL: any), $3 phone_state (NULL: any), $4 current (NULL: every offer), $5 before (NULL: from the newest), $6 limit
SELECT o.*, d.state AS delivery_state, d.terminal_reason, d.downstream_status, d.purpose, d.expires_at, (o.attempt_number = d.attempt_count) AS is_current
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id
WHERE o.device_id = $1 AND ($2::text IS NULL OR o.state = $2) AND ($3::text IS NULL OR o.phone_state = $3)
  AND ($4::boolean IS NULL OR o.attempt_number = d.attempt_count)
  AND ($5::bigint IS NULL OR o.id < $5)
ORDER BY o.id DESC
LIMIT $6;

-- name: sweep_failed
-- Deliveries of the account that definitely failed, changed since $3 and not expired, that
-- wait (retryable) or gave up (exhausted): their current offer on this device ended Failed
-- before sending or was withdrawn unpulled (made in the phone's last seconds before it counted
-- as away: it never reached a phone), or no device could take them (nothing offered) and they
-- are pinned to this device or to none.
-- params: $1 device_id, $2 provider_account, $3 since, $4 now, $5 limit
SELECT d.id, d.state, d.terminal_reason, d.attempt_count, d.lease_version, d.expires_at, d.next_attempt_at
FROM deliveries d
JOIN notifications n ON n.id = d.notification_id
LEFT JOIN device_offers o ON o.delivery_id = d.id AND o.attempt_number = d.attempt_count
WHERE d.provider_account = $2
  AND (d.state = 'retryable' OR (d.state = 'terminal' AND d.terminal_reason = 'exhausted'))
  AND d.updated_at >= $3 AND d.expires_at > $4
  AND ((o.device_id = $1 AND ((o.state = 'reported' AND o.phone_state = 'Failed' AND NOT o.sent) OR o.state = 'withdrawn'))
    OR (o.id IS NULL AND d.last_error_code IN ('device_offline', 'no_device_online')
        AND COALESCE(n.metadata_json::jsonb ->> 'herald_device_id', $1) = $1))
ORDER BY d.id
LIMIT $5;

-- name: sweep_unknown
-- Unknown (or unresolved) deliveries, not expired, whose current offer this device pulled (or
-- was re-offered) since $2, with no report.
-- params: $1 device_id, $2 since, $3 now, $4 limit
SELECT o.id AS offer_id, o.message_id, o.delivery_id
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id AND o.attempt_number = d.attempt_count
WHERE o.device_id = $1 AND o.state IN ('pulled', 'reoffered') AND o.offered_at >= $2 AND d.expires_at > $3
  AND (d.state = 'unknown' OR (d.state = 'terminal' AND d.terminal_reason = 'unresolved'))
ORDER BY o.id
LIMIT $4;

-- name: sweep_expired
-- What a sweep leaves alone because it expired: the window's failed or unknown deliveries of
-- this device (as above) whose expires_at has passed, however they ended since.
-- params: $1 device_id, $2 provider_account, $3 since, $4 now
SELECT COUNT(*) AS n
FROM deliveries d
JOIN notifications n ON n.id = d.notification_id
LEFT JOIN device_offers o ON o.delivery_id = d.id AND o.attempt_number = d.attempt_count
WHERE d.provider_account = $2 AND d.updated_at >= $3 AND d.expires_at <= $4
  AND d.state IN ('retryable', 'unknown', 'terminal') AND COALESCE(d.terminal_reason, 'expired') IN ('expired', 'exhausted', 'unresolved')
  AND ((o.device_id = $1 AND ((o.state = 'reported' AND o.phone_state = 'Failed' AND NOT o.sent) OR o.state IN ('pulled', 'reoffered', 'withdrawn')))
    OR (o.id IS NULL AND d.last_error_code IN ('device_offline', 'no_device_online')
        AND COALESCE(n.metadata_json::jsonb ->> 'herald_device_id', $1) = $1));

-- name: sweep_insert
-- params: $1 device_id, $2 cause, $3 away_since, $4 returned_at, $5 now, $6 retried, $7 reoffered, $8 skipped_expired
INSERT INTO device_sweeps (device_id, tenant_id, provider_account, cause, away_since, returned_at, swept_at, retried, reoffered, skipped_expired)
SELECT id, tenant_id, provider_account, $2, $3::bigint, $4::bigint, $5, $6, $7, $8
FROM devices WHERE id = $1
RETURNING *;

-- name: sweeps_list
-- params: $1 device_id, $2 limit
SELECT * FROM device_sweeps WHERE device_id = $1 ORDER BY id DESC LIMIT $2;
