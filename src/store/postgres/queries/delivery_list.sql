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
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit, $15 failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
    AND ($15::int IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_state
-- Walks (tenant_id, state, id). Index: deliveries_tenant_state.
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit, $15 failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.state = $4
    AND d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
    AND ($15::int IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_terminal_reason
-- Walks (tenant_id, terminal_reason, id). Index: deliveries_list_terminal_reason.
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit, $15 failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.terminal_reason = $7
    AND d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
    AND ($15::int IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_failed
-- Failed messages only (the one definition: the failed_messages view of migration 0029), starting from the view, whose two branches walk deliveries_list_terminal_reason and deliveries_due: failures are few, so a page never walks the tenant's whole list past its successes.
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.id IN (SELECT f.id FROM failed_messages f WHERE f.tenant_id = $1 AND f.id < $2 AND f.id >= $3)
    AND d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_downstream_status
-- Walks (tenant_id, downstream_status, id). Index: deliveries_list_downstream.
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit, $15 failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.downstream_status = $8
    AND d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
    AND ($15::int IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_provider_account
-- Walks (tenant_id, provider_account, id). Index: deliveries_list_account.
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit, $15 failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.provider_account = $9
    AND d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
    AND ($15::int IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_campaign
-- Walks (campaign_id, id). Index: deliveries_list_campaign.
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit, $15 failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.campaign_id = $10
    AND d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
    AND ($15::int IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_device
-- Starts from the device's offers (device_offers_device). Index: device_offers_device.
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit, $15 failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.id IN (SELECT o.delivery_id FROM device_offers o WHERE o.device_id = $11)
    AND d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
    AND ($15::int IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_id
-- Q is a delivery id: that delivery, if the other filters keep it.
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit, $15 q, $16 failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.id = $15
    AND d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
    AND ($16::int IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;

-- name: deliveries_list_by_notification
-- Q is a notification id, a recipient id or an operation id (the group key): the deliveries of the notifications it names. Index: notifications_recipient, notifications_group_generation.
-- params: $1 tenant_id, $2 before, $3 after, $4 state, $5 channel, $6 purpose, $7 terminal_reason, $8 downstream_status, $9 provider_account, $10 campaign_id, $11 device_id, $12 since, $13 until, $14 limit, $15 q, $16 failed
SELECT d.*, n.recipient_id, n.group_key AS operation_id,
  (SELECT o.device_id FROM device_offers o WHERE o.delivery_id = d.id ORDER BY o.attempt_number DESC, o.id DESC LIMIT 1) AS device_id
FROM (
  SELECT d.* FROM deliveries d
  WHERE d.notification_id IN (SELECT n.id FROM notifications n WHERE n.tenant_id = $1 AND (n.id = $15 OR n.recipient_id = $15 OR n.group_key = $15))
    AND d.tenant_id = $1
    AND d.id < $2 AND d.id >= $3
    AND ($4::text IS NULL OR d.state = $4)
    AND ($5::text IS NULL OR d.channel = $5)
    AND ($6::text IS NULL OR d.purpose = $6)
    AND ($7::text IS NULL OR d.terminal_reason = $7)
    AND ($8::text IS NULL OR d.downstream_status = $8)
    AND ($9::text IS NULL OR d.provider_account = $9)
    AND ($10::text IS NULL OR d.campaign_id = $10)
    AND ($12::bigint IS NULL OR d.created_at >= $12)
    AND ($13::bigint IS NULL OR d.created_at < $13)
    AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.device_id = $11))
    AND ($16::int IS NULL OR EXISTS (SELECT 1 FROM failed_messages f WHERE f.id = d.id))
  ORDER BY d.id DESC
  LIMIT $14
) d
JOIN notifications n ON n.id = d.notification_id
ORDER BY d.id DESC;
