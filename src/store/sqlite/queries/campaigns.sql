-- Recipients, audiences and campaigns (src/store/campaign-store.ts), and a campaign's
-- deliveries seen as one group. Every statement that reads a campaign's deliveries uses the
-- partial index deliveries_campaign.

-- name: recipient_upsert
-- params: @tenant_id, @id, @email, @phone, @push_token, @locale, @time_zone, @now
INSERT INTO recipients (tenant_id, id, email, phone, push_token, locale, time_zone, created_at, updated_at)
VALUES (@tenant_id, @id, @email, @phone, @push_token, @locale, @time_zone, @now, @now)
ON CONFLICT (tenant_id, id) DO UPDATE
SET email = excluded.email, phone = excluded.phone, push_token = excluded.push_token, locale = excluded.locale,
    time_zone = excluded.time_zone, updated_at = excluded.updated_at
RETURNING id, email, phone, push_token, locale, time_zone, created_at, updated_at;

-- name: recipients_get_many
-- params: @tenant_id, @ids (a JSON array of ids)
SELECT id, email, phone, push_token, locale, time_zone, created_at, updated_at
FROM recipients WHERE tenant_id = @tenant_id AND id IN (SELECT value FROM json_each(@ids));

-- name: audience_insert
-- params: @id, @tenant_id, @source, @now
INSERT INTO audiences (id, tenant_id, status, source, created_at) VALUES (@id, @tenant_id, 'loading', @source, @now);

-- name: audience_rows_insert
-- One row, run per row in one transaction (PostgreSQL's takes the batch as arrays).
-- A repeated recipient id is skipped (changes = 0): the first row of a recipient wins.
-- @data_json is the row's template data, sealed by the driver (NULL: none).
-- params: @audience_id, @position, @line, @recipient_id, @email, @phone, @push_token, @locale, @data_json, @time_zone
INSERT INTO audience_recipients (audience_id, position, line, recipient_id, email, phone, push_token, locale, data_json, time_zone)
VALUES (@audience_id, @position, @line, @recipient_id, @email, @phone, @push_token, @locale, @data_json, @time_zone)
ON CONFLICT (audience_id, recipient_id) DO NOTHING;

-- name: audience_seal
-- One pass over the rows for the counts (the loader does not keep the list to count it).
-- params: @id, @duplicates, @now
UPDATE audiences
SET status = 'ready', duplicates = @duplicates, sealed_at = @now,
    (size, with_email, with_phone, with_push_token) =
      (SELECT count(*), count(email), count(phone), count(push_token) FROM audience_recipients WHERE audience_id = @id)
WHERE id = @id AND status = 'loading'
RETURNING id, tenant_id, status, source, size, duplicates, with_email, with_phone, with_push_token, created_at;

-- name: audience_delete
-- Its rows go with it (ON DELETE CASCADE).
-- params: @id
DELETE FROM audiences WHERE id = @id AND NOT EXISTS (SELECT 1 FROM campaigns WHERE audience_id = @id);

-- name: audiences_loading_before
-- params: @before
SELECT id FROM audiences WHERE status = 'loading' AND created_at < @before;

-- name: audience_get
-- params: @tenant_id, @id
SELECT id, tenant_id, status, source, size, duplicates, with_email, with_phone, with_push_token, created_at
FROM audiences WHERE id = @id AND tenant_id = @tenant_id;

-- name: audience_rows_after
-- params: @audience_id, @after, @limit
SELECT position, line, recipient_id, email, phone, push_token, locale, data_json, time_zone
FROM audience_recipients WHERE audience_id = @audience_id AND position > @after
ORDER BY position LIMIT @limit;

-- name: audience_zone_counts
-- Recipients per time zone (NULL: rows that named none), for the campaign's waves.
-- params: @audience_id
SELECT time_zone, count(*) AS recipients FROM audience_recipients
WHERE audience_id = @audience_id GROUP BY time_zone ORDER BY time_zone;

-- name: audience_lines_without
-- @column is one of email, phone, push_token (CASE keeps the statement fixed).
-- params: @audience_id, @column, @limit
SELECT line FROM audience_recipients
WHERE audience_id = @audience_id
  AND CASE @column WHEN 'email' THEN email WHEN 'phone' THEN phone ELSE push_token END IS NULL
ORDER BY position LIMIT @limit;

-- name: campaign_insert
-- params: @id, @tenant_id, @name, @status, @channel, @purpose, @provider_account, @lane, @content_json, @metadata_json,
--         @ttl_ms, @audience_id, @audience_size, @deadline_at, @plan_json, @now, @started_at, @template_id, @template_version,
--         @send_at
INSERT INTO campaigns (id, tenant_id, name, status, channel, purpose, provider_account, lane, content_json, metadata_json,
                       ttl_ms, audience_id, audience_size, deadline_at, plan_json, created_at, updated_at, started_at,
                       template_id, template_version, send_at)
VALUES (@id, @tenant_id, @name, @status, @channel, @purpose, @provider_account, @lane, @content_json, @metadata_json,
        @ttl_ms, @audience_id, @audience_size, @deadline_at, @plan_json, @now, @now, @started_at, @template_id, @template_version,
        @send_at);

-- name: campaign_get
-- params: @tenant_id, @id
SELECT * FROM campaigns WHERE id = @id AND tenant_id = @tenant_id;

-- name: campaign_transition
-- A guarded status change: applies only from one of @from_statuses (a JSON array of statuses).
-- Leaving `paused` clears paused_at; entering `running` the first time sets started_at.
-- params: @tenant_id, @id, @from_statuses, @to, @now, @plan_json (NULL: keep the stored plan)
UPDATE campaigns
SET status = @to, updated_at = @now,
    paused_at = CASE WHEN @to = 'paused' THEN @now ELSE NULL END,
    started_at = CASE WHEN @to = 'running' THEN COALESCE(started_at, @now) ELSE started_at END,
    plan_json = COALESCE(@plan_json, plan_json)
WHERE id = @id AND tenant_id = @tenant_id AND status IN (SELECT value FROM json_each(@from_statuses))
RETURNING id;

-- name: campaign_hold_deliveries
-- Pause: queued deliveries wait at @hold_until; their real time is kept.
-- params: @campaign_id, @hold_until
UPDATE deliveries SET held_next_attempt_at = next_attempt_at, next_attempt_at = @hold_until
WHERE campaign_id = @campaign_id AND state IN ('ready', 'retryable') AND held_next_attempt_at IS NULL;

-- name: campaign_release_deliveries
-- Resume: held deliveries are due at their real time, or now if that has passed. A held
-- delivery that left the queue meanwhile (an operator's replay, expiry) only loses the mark.
-- params: @campaign_id, @now
UPDATE deliveries
SET next_attempt_at = CASE WHEN state IN ('ready', 'retryable') THEN MAX(held_next_attempt_at, @now) ELSE next_attempt_at END,
    held_next_attempt_at = NULL
WHERE campaign_id = @campaign_id AND held_next_attempt_at IS NOT NULL;

-- name: campaign_hold_paused
-- Queued deliveries of paused campaigns that are not held yet: a call in flight at the pause that ended retryable.
-- params: @hold_until
UPDATE deliveries SET held_next_attempt_at = next_attempt_at, next_attempt_at = @hold_until
WHERE campaign_id IN (SELECT id FROM campaigns WHERE status = 'paused')
  AND state IN ('ready', 'retryable') AND held_next_attempt_at IS NULL;

-- name: campaigns_list
-- A page of the tenant's campaigns, newest first (campaigns_tenant); one row more than the page tells there is a next one.
-- params: @tenant_id, @status (NULL: any), @after (NULL: from the newest), @limit
SELECT * FROM campaigns
WHERE tenant_id = @tenant_id AND (@status IS NULL OR status = @status) AND (@after IS NULL OR id < @after)
ORDER BY id DESC LIMIT @limit;

-- name: campaigns_active
-- params: @limit
SELECT * FROM campaigns
WHERE finished_at IS NULL AND status IN ('running', 'paused', 'cancelled')
ORDER BY id LIMIT @limit;

-- name: campaign_advance
-- The fan-out cursor moves only from where the runner read it, and only while running.
-- params: @id, @expect_position, @to_position, @fanned_out, @skipped, @now
UPDATE campaigns
SET fanned_out_position = @to_position, fanned_out = fanned_out + @fanned_out, skipped = skipped + @skipped, updated_at = @now
WHERE id = @id AND status = 'running' AND fanned_out_position = @expect_position
RETURNING id;

-- name: campaign_link_deliveries
-- params: @campaign_id, @notification_id
UPDATE deliveries SET campaign_id = @campaign_id WHERE notification_id = @notification_id;

-- name: campaign_queued_count
-- params: @campaign_id
SELECT count(*) AS n FROM deliveries WHERE campaign_id = @campaign_id AND state IN ('ready', 'retryable');

-- name: campaign_delivery_counts
-- params: @campaign_id
SELECT state, terminal_reason, downstream_status, held_next_attempt_at IS NOT NULL AS held, count(*) AS n
FROM deliveries WHERE campaign_id = @campaign_id
GROUP BY state, terminal_reason, downstream_status, held_next_attempt_at IS NOT NULL;

-- name: campaign_delivery_counts_many
-- campaign_delivery_counts for a page of campaigns at once (deliveries_campaign).
-- params: @campaign_ids (JSON array)
SELECT campaign_id, state, terminal_reason, downstream_status, held_next_attempt_at IS NOT NULL AS held, count(*) AS n
FROM deliveries WHERE campaign_id IN (SELECT value FROM json_each(@campaign_ids))
GROUP BY campaign_id, state, terminal_reason, downstream_status, held_next_attempt_at IS NOT NULL;

-- name: campaign_pending
-- params: @campaign_id, @limit
SELECT id, state, attempt_count, lease_version, expires_at, next_attempt_at
FROM deliveries WHERE campaign_id = @campaign_id AND state IN ('ready', 'retryable')
ORDER BY id LIMIT @limit;

-- name: campaign_finish
-- running → completed once every row is fanned out and no delivery is still on its way;
-- cancelled → finished once nothing is queued or in flight (unknown ones settle on their own).
-- params: @id, @now
UPDATE campaigns
SET status = CASE WHEN status = 'running' THEN 'completed' ELSE status END, finished_at = @now, updated_at = @now
WHERE id = @id AND finished_at IS NULL
  AND ((status = 'running' AND fanned_out + skipped = audience_size
        AND NOT EXISTS (SELECT 1 FROM deliveries WHERE campaign_id = @id AND state IN ('ready', 'retryable', 'submitting', 'unknown')))
    OR (status = 'cancelled'
        AND NOT EXISTS (SELECT 1 FROM deliveries WHERE campaign_id = @id AND state IN ('ready', 'retryable', 'submitting'))))
RETURNING status;

-- name: campaign_refusal_insert
-- One row, run per refusal in the fan-out batch's transaction (PostgreSQL's takes the batch as arrays).
-- params: @campaign_id, @position, @line, @recipient_id, @code, @reason, @locale, @now
INSERT INTO campaign_refusals (campaign_id, position, line, recipient_id, code, reason, locale, created_at)
VALUES (@campaign_id, @position, @line, @recipient_id, @code, @reason, @locale, @now);

-- name: campaign_refusals_after
-- params: @campaign_id, @after, @limit
SELECT position, line, recipient_id, code, reason, locale, created_at
FROM campaign_refusals WHERE campaign_id = @campaign_id AND position > @after
ORDER BY position LIMIT @limit;

-- name: campaign_refusal_counts
-- params: @campaign_id
SELECT code, count(*) AS n FROM campaign_refusals WHERE campaign_id = @campaign_id GROUP BY code ORDER BY code;
