-- Devices: Android gateway phones, their logins and codes, offers, reports and heartbeat sweeps.
-- The same statement names as the PostgreSQL driver's devices.sql. Booleans are 0/1 here.

-- name: gateway_login_insert
-- params: @login, @provider_account, @tenant_id, @password_hash, @now
INSERT INTO gateway_logins (login, provider_account, tenant_id, password_hash, created_at)
VALUES (@login, @provider_account, @tenant_id, @password_hash, @now);

-- name: gateway_login_get
-- params: @login
SELECT login, provider_account, tenant_id, password_hash FROM gateway_logins WHERE login = @login;

-- name: gateway_login_set_password
-- params: @login, @password_hash
UPDATE gateway_logins SET password_hash = @password_hash WHERE login = @login;

-- name: login_code_insert
-- params: @code_hash, @login, @valid_until, @now
INSERT INTO gateway_login_codes (code_hash, login, valid_until, created_at) VALUES (@code_hash, @login, @valid_until, @now);

-- name: login_code_use
-- A code registers one phone, once, before it expires.
-- params: @code_hash, @now
UPDATE gateway_login_codes SET used_at = @now
WHERE code_hash = @code_hash AND used_at IS NULL AND valid_until > @now
RETURNING login;

-- name: device_insert
-- params: @id, @tenant_id, @provider_account, @login, @name, @token_hash, @sim_cards_json, @app_version, @now
INSERT INTO devices (id, tenant_id, provider_account, login, name, token_hash, sim_cards_json, app_version, created_at, last_seen_at)
VALUES (@id, @tenant_id, @provider_account, @login, @name, @token_hash, @sim_cards_json, @app_version, @now, @now);

-- name: device_by_token
-- params: @token_hash
SELECT * FROM devices WHERE token_hash = @token_hash;

-- name: device_get
-- params: @id
SELECT * FROM devices WHERE id = @id;

-- name: devices_list
-- params: @tenant_id (NULL: any), @provider_account (NULL: any)
SELECT * FROM devices
WHERE (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@provider_account IS NULL OR provider_account = @provider_account)
ORDER BY created_at, id;

-- name: device_update
-- params: @id, @sim_cards_json (NULL: unchanged), @app_version (NULL: unchanged)
UPDATE devices SET sim_cards_json = COALESCE(@sim_cards_json, sim_cards_json), app_version = COALESCE(@app_version, app_version)
WHERE id = @id;

-- name: device_touch
-- Last seen moves forward only. A call after more than @away ms of silence marks a return (the
-- heartbeat sweep is due) unless one is already waiting for its sweep; SET reads the old row.
-- params: @id, @now, @away
UPDATE devices
SET last_seen_at = MAX(last_seen_at, @now),
    returned_at = CASE WHEN returned_at IS NULL AND @now - last_seen_at > @away THEN @now ELSE returned_at END,
    away_since = CASE WHEN returned_at IS NULL AND @now - last_seen_at > @away THEN last_seen_at ELSE away_since END
WHERE id = @id
RETURNING last_seen_at, returned_at, away_since;

-- name: devices_returned
-- params: @limit
SELECT * FROM devices WHERE returned_at IS NOT NULL ORDER BY returned_at, id LIMIT @limit;

-- name: device_return_check
-- params: @id, @returned_at
SELECT tenant_id, provider_account FROM devices WHERE id = @id AND returned_at = @returned_at;

-- name: device_return_clear
-- params: @id, @returned_at
UPDATE devices SET returned_at = NULL, away_since = NULL WHERE id = @id AND returned_at = @returned_at;

-- name: offer_preferences
-- What a notification asks of its SMS offers: the device (metadata herald_device_id) and the SIM
-- (herald_sim_number), if any.
-- params: @delivery_id
SELECT json_extract(n.metadata_json, '$.herald_device_id') AS device_id, json_extract(n.metadata_json, '$.herald_sim_number') AS sim_number
FROM deliveries d JOIN notifications n ON n.id = d.notification_id WHERE d.id = @delivery_id;

-- name: device_loads
-- Per device of an account: offers not finished on the phone, and failures before sending.
-- params: @provider_account, @since
SELECT dv.id AS device_id,
  (SELECT COUNT(*) FROM device_offers o WHERE o.device_id = dv.id AND o.offered_at >= @since
     AND (o.state IN ('offered', 'pulled', 'reoffered') OR (o.state = 'reported' AND o.phone_state IN ('Pending', 'Processed')))) AS queue_depth,
  (SELECT COUNT(*) FROM device_offers o WHERE o.device_id = dv.id AND o.reported_at >= @since
     AND o.phone_state = 'Failed' AND o.sent = 0) AS recent_failures
FROM devices dv WHERE dv.provider_account = @provider_account
ORDER BY dv.id;

-- name: offer_next_seq
-- The next offer of a delivery and the attempt it belongs to (the claim counted it already).
-- params: @delivery_id
SELECT COALESCE((SELECT MAX(seq) FROM device_offers WHERE delivery_id = @delivery_id), 0) + 1 AS seq,
       attempt_count AS attempt_number
FROM deliveries WHERE id = @delivery_id;

-- name: offer_insert
-- params: @message_id, @delivery_id, @seq, @attempt_number, @device_id, @provider_account, @sim_number, @priority, @valid_until, @now
INSERT INTO device_offers (message_id, delivery_id, seq, attempt_number, device_id, provider_account, state, sim_number, priority, valid_until, offered_at)
VALUES (@message_id, @delivery_id, @seq, @attempt_number, @device_id, @provider_account, 'offered', @sim_number, @priority, @valid_until, @now)
RETURNING *;

-- name: offers_pull
-- The device's listed offers still valid, in the app's order (lifo: newest first; fifo: priority,
-- then oldest first, as the reference server orders), at most @limit, marked pulled.
-- params: @device_id, @fifo (1 or 0), @limit, @now
UPDATE device_offers
SET state = 'pulled', pulled_at = COALESCE(pulled_at, @now), last_pulled_at = @now, pull_count = pull_count + 1
WHERE id IN (
  SELECT id FROM device_offers
  WHERE device_id = @device_id AND state IN ('offered', 'reoffered') AND valid_until > @now
  ORDER BY CASE WHEN @fifo = 1 THEN -priority ELSE 0 END, CASE WHEN @fifo = 1 THEN id ELSE -id END
  LIMIT @limit)
RETURNING id;

-- name: offer_messages
-- What the phone needs to send the pulled offers: number, text, SIM, priority, validity, and
-- whether to ask for a delivery report (metadata herald_delivery_report, absent = yes).
-- params: @ids (JSON array of offer ids)
SELECT o.id, o.message_id, o.sim_number, o.priority, o.valid_until, o.offered_at, d.destination, n.id AS notification_id, n.content_json,
       json_extract(n.metadata_json, '$.herald_delivery_report') AS delivery_report
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id JOIN notifications n ON n.id = d.notification_id
WHERE o.id IN (SELECT value FROM json_each(@ids));

-- name: offer_for_report
-- params: @message_id, @device_id
SELECT id, state, phone_state, sent, phone_error FROM device_offers WHERE message_id = @message_id AND device_id = @device_id;

-- name: offer_record_report
-- params: @id, @phone_state, @phone_error, @sent, @now
UPDATE device_offers
SET state = 'reported', phone_state = @phone_state, phone_error = COALESCE(@phone_error, phone_error), sent = @sent,
    reported_at = @now, report_seq = report_seq + 1
WHERE id = @id;

-- name: reports_unapplied
-- Reports not yet written into their delivery, oldest first; a delivery in flight waits.
-- params: @limit
SELECT o.id AS offer_id, o.message_id, o.report_seq, o.phone_state, o.sent, o.phone_error, o.provider_account,
       o.attempt_number, (o.attempt_number = d.attempt_count) AS is_current,
       d.id AS delivery_id, d.state, d.terminal_reason, d.downstream_status, d.attempt_count, d.lease_version,
       d.expires_at, d.next_attempt_at, d.purpose, n.retry_ladder
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id JOIN notifications n ON n.id = d.notification_id
WHERE o.report_seq > o.applied_seq AND d.state <> 'submitting'
ORDER BY o.id
LIMIT @limit;

-- name: report_delivery_apply
-- A report merged into its delivery, guarded by state, fencing token and downstream status
-- (null-safe); with @to_state NULL only the downstream status (and ids, error code) change.
-- params: @id, @expect_state, @expect_lease_version, @expect_downstream, @to_state, @terminal_reason,
--         @next_attempt_at, @downstream_status, @provider_message_id, @last_error_code, @now
UPDATE deliveries
SET state = COALESCE(@to_state, state),
    terminal_reason = CASE WHEN @to_state IS NULL THEN terminal_reason ELSE @terminal_reason END,
    next_attempt_at = CASE WHEN @to_state IS NULL THEN next_attempt_at ELSE @next_attempt_at END,
    downstream_status = @downstream_status,
    confirmed_at = COALESCE(confirmed_at, CASE WHEN @downstream_status IN ('sent', 'delivered', 'read') THEN @now END),
    provider_message_id = COALESCE(@provider_message_id, provider_message_id),
    last_error_code = COALESCE(@last_error_code, last_error_code),
    reconcile_at = NULL,
    updated_at = @now
WHERE id = @id AND state = @expect_state AND lease_version = @expect_lease_version
  AND downstream_status IS @expect_downstream
RETURNING tenant_id, notification_id, provider_account;

-- name: report_mark_applied
-- params: @id, @report_seq
UPDATE device_offers SET applied_seq = @report_seq WHERE id = @id AND report_seq = @report_seq;

-- name: offer_current
-- The offer of a delivery's current attempt, found by Herald's reference.
-- params: @provider_account, @idempotency_key
SELECT o.* FROM deliveries d JOIN device_offers o ON o.delivery_id = d.id AND o.attempt_number = d.attempt_count
WHERE d.idempotency_key = @idempotency_key AND d.provider_account = @provider_account
ORDER BY o.seq DESC LIMIT 1;

-- name: offer_withdraw
-- Only an offer no phone ever pulled: then it provably never reached one.
-- params: @id
UPDATE device_offers SET state = 'withdrawn' WHERE id = @id AND state = 'offered' AND pulled_at IS NULL;

-- name: offers_reoffer
-- params: @ids (JSON array of offer ids), @now
UPDATE device_offers SET state = 'reoffered', reoffered_at = @now, reoffer_count = reoffer_count + 1
WHERE id IN (SELECT value FROM json_each(@ids)) AND state IN ('pulled', 'reoffered');

-- name: device_message_get
-- params: @message_id
SELECT o.*, d.state AS delivery_state, d.terminal_reason, d.purpose, d.expires_at, (o.attempt_number = d.attempt_count) AS is_current
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id
WHERE o.message_id = @message_id;

-- name: delivery_offers
-- params: @delivery_id
SELECT o.*, d.state AS delivery_state, d.terminal_reason, d.purpose, d.expires_at, (o.attempt_number = d.attempt_count) AS is_current
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id
WHERE o.delivery_id = @delivery_id
ORDER BY o.seq;

-- name: device_messages_list
-- With @current, only each message's current offer (one row per message; older offers are in its timeline).
-- params: @device_id, @state (NULL: any), @phone_state (NULL: any), @current (NULL: every offer), @before (NULL: from the newest), @limit
SELECT o.*, d.state AS delivery_state, d.terminal_reason, d.downstream_status, d.purpose, d.expires_at, (o.attempt_number = d.attempt_count) AS is_current
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id
WHERE o.device_id = @device_id AND (@state IS NULL OR o.state = @state) AND (@phone_state IS NULL OR o.phone_state = @phone_state)
  AND (@current IS NULL OR o.attempt_number = d.attempt_count)
  AND (@before IS NULL OR o.id < @before)
ORDER BY o.id DESC
LIMIT @limit;

-- name: sweep_failed
-- Deliveries of the account that definitely failed, changed since @since and not expired, that
-- wait (retryable) or gave up (exhausted): their current offer on this device ended Failed
-- before sending or was withdrawn unpulled (made in the phone's last seconds before it counted
-- as away: it never reached a phone), or no device could take them (nothing offered) and they
-- are pinned to this device or to none.
-- params: @device_id, @provider_account, @since, @now, @limit
SELECT d.id, d.state, d.terminal_reason, d.attempt_count, d.lease_version, d.expires_at, d.next_attempt_at
FROM deliveries d
JOIN notifications n ON n.id = d.notification_id
LEFT JOIN device_offers o ON o.delivery_id = d.id AND o.attempt_number = d.attempt_count
WHERE d.provider_account = @provider_account
  AND (d.state = 'retryable' OR (d.state = 'terminal' AND d.terminal_reason = 'exhausted'))
  AND d.updated_at >= @since AND d.expires_at > @now
  AND ((o.device_id = @device_id AND ((o.state = 'reported' AND o.phone_state = 'Failed' AND o.sent = 0) OR o.state = 'withdrawn'))
    OR (o.id IS NULL AND d.last_error_code IN ('device_offline', 'no_device_online')
        AND COALESCE(json_extract(n.metadata_json, '$.herald_device_id'), @device_id) = @device_id))
ORDER BY d.id
LIMIT @limit;

-- name: sweep_unknown
-- Unknown (or unresolved) deliveries, not expired, whose current offer this device pulled (or
-- was re-offered) since @since, with no report.
-- params: @device_id, @since, @now, @limit
SELECT o.id AS offer_id, o.message_id, o.delivery_id
FROM device_offers o JOIN deliveries d ON d.id = o.delivery_id AND o.attempt_number = d.attempt_count
WHERE o.device_id = @device_id AND o.state IN ('pulled', 'reoffered') AND o.offered_at >= @since AND d.expires_at > @now
  AND (d.state = 'unknown' OR (d.state = 'terminal' AND d.terminal_reason = 'unresolved'))
ORDER BY o.id
LIMIT @limit;

-- name: sweep_expired
-- What a sweep leaves alone because it expired: the window's failed or unknown deliveries of
-- this device (as above) whose expires_at has passed, however they ended since.
-- params: @device_id, @provider_account, @since, @now
SELECT COUNT(*) AS n
FROM deliveries d
JOIN notifications n ON n.id = d.notification_id
LEFT JOIN device_offers o ON o.delivery_id = d.id AND o.attempt_number = d.attempt_count
WHERE d.provider_account = @provider_account AND d.updated_at >= @since AND d.expires_at <= @now
  AND d.state IN ('retryable', 'unknown', 'terminal') AND COALESCE(d.terminal_reason, 'expired') IN ('expired', 'exhausted', 'unresolved')
  AND ((o.device_id = @device_id AND ((o.state = 'reported' AND o.phone_state = 'Failed' AND o.sent = 0) OR o.state IN ('pulled', 'reoffered', 'withdrawn')))
    OR (o.id IS NULL AND d.last_error_code IN ('device_offline', 'no_device_online')
        AND COALESCE(json_extract(n.metadata_json, '$.herald_device_id'), @device_id) = @device_id));

-- name: sweep_insert
-- params: @device_id, @cause, @away_since, @returned_at, @now, @retried, @reoffered, @skipped_expired
INSERT INTO device_sweeps (device_id, tenant_id, provider_account, cause, away_since, returned_at, swept_at, retried, reoffered, skipped_expired)
SELECT id, tenant_id, provider_account, @cause, @away_since, @returned_at, @now, @retried, @reoffered, @skipped_expired
FROM devices WHERE id = @device_id
RETURNING *;

-- name: sweeps_list
-- params: @device_id, @limit
SELECT * FROM device_sweeps WHERE device_id = @device_id ORDER BY id DESC LIMIT @limit;
