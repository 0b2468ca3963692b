-- The delivery list (GET /v1/deliveries): newest first, keyset-paginated on the id (a ULID, so
-- id order is creation order). Every statement takes the same filters (NULL when absent) and
-- differs only in the one equality that lets it walk an index instead of the tenant's whole
-- list: the store picks the most selective filter present (delivery-list.ts). @before and
-- @after are always set (sentinels without a cursor or a time range), so the id bound is a
-- range on the index, and a deep page costs what the first page costs.
-- The page is picked from deliveries alone, then joined: 51 primary-key look-ups, never a join
-- of the whole table. operation_id is the notification's group key; device_id the phone of the
-- delivery's latest offer (android_gateway accounts).

-- name: deliveries_list
-- The default: the tenant's deliveries by id, filters applied as the index (tenant_id, id) is walked. Index: deliveries_tenant.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit, @failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
    AND (@failed IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_state
-- Walks (tenant_id, state, id). Index: deliveries_tenant_state.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit, @failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.state = @state
    AND d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
    AND (@failed IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_terminal_reason
-- Walks (tenant_id, terminal_reason, id). Index: deliveries_list_terminal_reason.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit, @failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.terminal_reason = @terminal_reason
    AND d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
    AND (@failed IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_failed
-- Failed messages only (the one definition: the failed_messages view of migration 0029), starting from the view, whose two branches walk deliveries_list_terminal_reason and deliveries_due: failures are few, so a page never walks the tenant's whole list past its successes.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.id IN (SELECT f.id FROM failed_messages f WHERE f.tenant_id = @tenant_id AND f.id < @before AND f.id >= @after)
    AND d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_downstream_status
-- Walks (tenant_id, downstream_status, id). Index: deliveries_list_downstream.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit, @failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.downstream_status = @downstream_status
    AND d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
    AND (@failed IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_provider_account
-- Walks (tenant_id, provider_account, id). Index: deliveries_list_account.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit, @failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.provider_account = @provider_account
    AND d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
    AND (@failed IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_campaign
-- Walks (campaign_id, id). Index: deliveries_list_campaign.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit, @failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.campaign_id = @campaign_id
    AND d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
    AND (@failed IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_device
-- Starts from the device's offers (device_offers_device). Index: device_offers_device.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit, @failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.id IN (SELECT o.delivery_id FROM device_offers o WHERE o.device_id = @device_id)
    AND d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
    AND (@failed IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_id
-- Q is a delivery id: that delivery, if the other filters keep it.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit, @q, @failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.id = @q
    AND d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
    AND (@failed IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_notification
-- Q is a notification id, a recipient id or an operation id (the group key): the deliveries of the notifications it names. Index: notifications_recipient, notifications_group_generation.
-- params: @tenant_id, @before, @after, @state, @channel, @purpose, @terminal_reason, @downstream_status, @provider_account, @campaign_id, @device_id, @since, @until, @limit, @q, @failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.notification_id IN (SELECT n.id FROM notifications n WHERE n.tenant_id = @tenant_id AND (n.id = @q OR n.recipient_id = @q OR n.group_key = @q))
    AND d.tenant_id = @tenant_id
    AND d.id < @before AND d.id >= @after
    AND (@state IS NULL OR d.state = @state)
    AND (@channel IS NULL OR d.channel = @channel)
    AND (@purpose IS NULL OR d.purpose = @purpose)
    AND (@terminal_reason IS NULL OR d.terminal_reason = @terminal_reason)
    AND (@downstream_status IS NULL OR d.downstream_status = @downstream_status)
    AND (@provider_account IS NULL OR d.provider_account = @provider_account)
    AND (@campaign_id IS NULL OR d.campaign_id = @campaign_id)
    AND (@since IS NULL OR d.created_at >= @since)
    AND (@until IS NULL OR d.created_at < @until)
    AND (@device_id IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = @device_id))
    AND (@failed IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT @limit
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;
