-- Recipients, audiences and campaigns (src/store/campaign-store.ts), and a campaign's
-- deliveries seen as one group. Every statement that reads a campaign's deliveries uses the
-- partial index deliveries_campaign.

-- name: recipient_upsert
-- `inserted`: xmax = 0 only for a row this statement inserted.
-- params: $1 tenant_id, $2 id, $3 email, $4 phone, $5 push_token, $6 locale, $7 now, $8 time_zone
INSERT INTO recipients (tenant_id, id, email, phone, push_token, locale, time_zone, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $8, $7, $7)
ON CONFLICT (tenant_id, id) DO UPDATE
SET email = excluded.email, phone = excluded.phone, push_token = excluded.push_token, locale = excluded.locale,
    time_zone = excluded.time_zone, updated_at = excluded.updated_at
RETURNING id, email, phone, push_token, locale, time_zone, created_at, updated_at, (xmax = 0) AS inserted;

-- name: recipients_get_many
-- params: $1 tenant_id, $2 ids[]
SELECT id, email, phone, push_token, locale, time_zone, created_at, updated_at
FROM recipients WHERE tenant_id = $1 AND id = ANY($2::text[]);

-- name: audience_insert
-- params: $1 id, $2 tenant_id, $3 source, $4 now
INSERT INTO audiences (id, tenant_id, status, source, created_at) VALUES ($1, $2, 'loading', $3, $4);

-- name: audience_rows_insert
-- A repeated recipient id is skipped: the first row of a recipient wins. Returns one row per row written.
-- $9 holds each row's template data, sealed by the driver (NULL: none).
-- params: $1 audience_id, $2 positions[], $3 lines[], $4 recipient_ids[], $5 emails[], $6 phones[], $7 push_tokens[], $8 locales[], $9 data_jsons[], $10 time_zones[]
INSERT INTO audience_recipients (audience_id, position, line, recipient_id, email, phone, push_token, locale, data_json, time_zone)
SELECT $1, r.position, r.line, r.recipient_id, r.email, r.phone, r.push_token, r.locale, r.data_json, r.time_zone
FROM unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
     AS r(position, line, recipient_id, email, phone, push_token, locale, data_json, time_zone)
ORDER BY r.position
ON CONFLICT (audience_id, recipient_id) DO NOTHING
RETURNING 1;

-- name: audience_seal
-- One pass over the rows for the counts (the loader does not keep the list to count it).
-- params: $1 id, $2 duplicates, $3 now
UPDATE audiences
SET status = 'ready', duplicates = $2, sealed_at = $3,
    (size, with_email, with_phone, with_push_token) =
      (SELECT count(*), count(email), count(phone), count(push_token) FROM audience_recipients WHERE audience_id = $1)
WHERE id = $1 AND status = 'loading'
RETURNING id, tenant_id, status, source, size, duplicates, with_email, with_phone, with_push_token, created_at;

-- name: audience_delete
-- Its rows go with it (ON DELETE CASCADE).
-- params: $1 id
DELETE FROM audiences WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM campaigns WHERE audience_id = $1);

-- name: audiences_loading_before
-- params: $1 before
SELECT id FROM audiences WHERE status = 'loading' AND created_at < $1;

-- name: audience_get
-- params: $1 tenant_id, $2 id
SELECT id, tenant_id, status, source, size, duplicates, with_email, with_phone, with_push_token, created_at
FROM audiences WHERE id = $2 AND tenant_id = $1;

-- name: audience_rows_after
-- params: $1 audience_id, $2 after, $3 limit
SELECT position, line, recipient_id, email, phone, push_token, locale, data_json, time_zone
FROM audience_recipients WHERE audience_id = $1 AND position > $2
ORDER BY position LIMIT $3;

-- name: audience_zone_counts
-- Recipients per time zone (NULL: rows that named none), for the campaign's waves.
-- params: $1 audience_id
SELECT time_zone, count(*) AS recipients FROM audience_recipients
WHERE audience_id = $1 GROUP BY time_zone ORDER BY time_zone;

-- name: audience_lines_without
-- $2 is one of email, phone, push_token (CASE keeps the statement fixed).
-- params: $1 audience_id, $2 column, $3 limit
SELECT line FROM audience_recipients
WHERE audience_id = $1
  AND CASE $2::text WHEN 'email' THEN email WHEN 'phone' THEN phone ELSE push_token END IS NULL
ORDER BY position LIMIT $3;

-- name: campaign_insert
-- params: $1 id, $2 tenant_id, $3 name, $4 status, $5 channel, $6 purpose, $7 provider_account, $8 lane, $9 content_json,
--         $10 metadata_json, $11 ttl_ms, $12 audience_id, $13 audience_size, $14 deadline_at, $15 plan_json, $16 now, $17 started_at,
--         $18 template_id, $19 template_version, $20 send_at
INSERT INTO campaigns (id, tenant_id, name, status, channel, purpose, provider_account, lane, content_json, metadata_json,
                       ttl_ms, audience_id, audience_size, deadline_at, plan_json, created_at, updated_at, started_at,
                       template_id, template_version, send_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16, $17, $18, $19, $20);

-- name: campaign_get
-- params: $1 tenant_id, $2 id
SELECT * FROM campaigns WHERE id = $2 AND tenant_id = $1;

-- name: campaign_transition
-- A guarded status change: applies only from one of $3. Leaving `paused` clears paused_at;
-- entering `running` the first time sets started_at.
-- params: $1 tenant_id, $2 id, $3 from_statuses[], $4 to, $5 now, $6 plan_json (NULL: keep the stored plan)
UPDATE campaigns
SET status = $4::text, updated_at = $5::bigint,
    paused_at = CASE WHEN $4::text = 'paused' THEN $5::bigint ELSE NULL END,
    started_at = CASE WHEN $4::text = 'running' THEN COALESCE(started_at, $5::bigint) ELSE started_at END,
    plan_json = COALESCE($6::text, plan_json)
WHERE id = $2 AND tenant_id = $1 AND status = ANY($3::text[])
RETURNING id;

-- name: campaign_hold_deliveries
-- Pause: queued deliveries wait at $2; their real time is kept.
-- params: $1 campaign_id, $2 hold_until
UPDATE deliveries SET held_next_attempt_at = next_attempt_at, next_attempt_at = $2
WHERE campaign_id = $1 AND state IN ('ready', 'retryable') AND held_next_attempt_at IS NULL;

-- name: campaign_release_deliveries
-- Resume: held deliveries are due at their real time, or now if that has passed. A held
-- delivery that left the queue meanwhile (an operator's replay, expiry) only loses the mark.
-- params: $1 campaign_id, $2 now
UPDATE deliveries
SET next_attempt_at = CASE WHEN state IN ('ready', 'retryable') THEN GREATEST(held_next_attempt_at, $2::bigint) ELSE next_attempt_at END,
    held_next_attempt_at = NULL
WHERE campaign_id = $1 AND held_next_attempt_at IS NOT NULL;

-- name: campaign_hold_paused
-- Queued deliveries of paused campaigns that are not held yet: a call in flight at the pause that ended retryable.
-- params: $1 hold_until
UPDATE deliveries SET held_next_attempt_at = next_attempt_at, next_attempt_at = $1
WHERE campaign_id IN (SELECT id FROM campaigns WHERE status = 'paused')
  AND state IN ('ready', 'retryable') AND held_next_attempt_at IS NULL;

-- name: campaigns_list
-- A page of the tenant's campaigns, newest first (campaigns_tenant); one row more than the page tells there is a next one.
-- params: $1 tenant_id, $2 status (NULL: any), $3 after (NULL: from the newest), $4 limit
SELECT * FROM campaigns
WHERE tenant_id = $1 AND ($2::text IS NULL OR status = $2::text) AND ($3::text IS NULL OR id < $3::text)
ORDER BY id DESC LIMIT $4;

-- name: campaigns_active
-- params: $1 limit
SELECT * FROM campaigns
WHERE finished_at IS NULL AND status IN ('running', 'paused', 'cancelled')
ORDER BY id LIMIT $1;

-- name: campaign_advance
-- The fan-out cursor moves only from where the runner read it, and only while running; the row
-- lock it takes makes a second runner (or a pause) wait for this batch's commit.
-- params: $1 id, $2 expect_position, $3 to_position, $4 fanned_out, $5 skipped, $6 now
UPDATE campaigns
SET fanned_out_position = $3, fanned_out = fanned_out + $4, skipped = skipped + $5, updated_at = $6
WHERE id = $1 AND status = 'running' AND fanned_out_position = $2
RETURNING id;

-- name: campaign_queued_count
-- params: $1 campaign_id
SELECT count(*) AS n FROM deliveries WHERE campaign_id = $1 AND state IN ('ready', 'retryable');

-- name: campaign_delivery_counts
-- params: $1 campaign_id
SELECT state, terminal_reason, downstream_status, held_next_attempt_at IS NOT NULL AS held, count(*) AS n
FROM deliveries WHERE campaign_id = $1
GROUP BY state, terminal_reason, downstream_status, held_next_attempt_at IS NOT NULL;

-- name: campaign_delivery_counts_many
-- campaign_delivery_counts for a page of campaigns at once (deliveries_campaign).
-- params: $1 campaign_ids[]
SELECT campaign_id, state, terminal_reason, downstream_status, held_next_attempt_at IS NOT NULL AS held, count(*) AS n
FROM deliveries WHERE campaign_id = ANY($1::text[])
GROUP BY campaign_id, state, terminal_reason, downstream_status, held_next_attempt_at IS NOT NULL;

-- name: campaign_pending
-- params: $1 campaign_id, $2 limit
SELECT id, state, attempt_count, lease_version, expires_at, next_attempt_at
FROM deliveries WHERE campaign_id = $1 AND state IN ('ready', 'retryable')
ORDER BY id LIMIT $2;

-- name: campaign_finish
-- running → completed once every row is fanned out and no delivery is still on its way;
-- cancelled → finished once nothing is queued or in flight (unknown ones settle on their own).
-- params: $1 id, $2 now
UPDATE campaigns
SET status = CASE WHEN status = 'running' THEN 'completed' ELSE status END, finished_at = $2, updated_at = $2
WHERE id = $1 AND finished_at IS NULL
  AND ((status = 'running' AND fanned_out + skipped = audience_size
        AND NOT EXISTS (SELECT 1 FROM deliveries WHERE campaign_id = $1 AND state IN ('ready', 'retryable', 'submitting', 'unknown')))
    OR (status = 'cancelled'
        AND NOT EXISTS (SELECT 1 FROM deliveries WHERE campaign_id = $1 AND state IN ('ready', 'retryable', 'submitting'))))
RETURNING status;

-- name: campaign_refusal_insert
-- The batch's refusals as arrays, in the fan-out batch's transaction.
-- params: $1 campaign_id, $2 positions[], $3 lines[], $4 recipient_ids[], $5 codes[], $6 reasons[], $7 locales[], $8 now
INSERT INTO campaign_refusals (campaign_id, position, line, recipient_id, code, reason, locale, created_at)
SELECT $1, r.position, r.line, r.recipient_id, r.code, r.reason, r.locale, $8
FROM unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[]) AS r(position, line, recipient_id, code, reason, locale);

-- name: campaign_refusals_after
-- params: $1 campaign_id, $2 after, $3 limit
SELECT position, line, recipient_id, code, reason, locale, created_at
FROM campaign_refusals WHERE campaign_id = $1 AND position > $2
ORDER BY position LIMIT $3;

-- name: campaign_refusal_counts
-- params: $1 campaign_id
SELECT code, count(*) AS n FROM campaign_refusals WHERE campaign_id = $1 GROUP BY code ORDER BY code;
