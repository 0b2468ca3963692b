-- name: operator_actions_insert
-- params: @id, @tenant_id, @at, @action, @actor_kind, @actor_id, @actor_name, @notification_id, @delivery_id, @campaign_id, @device_id, @detail_json, @subject_id, @ip
INSERT INTO operator_actions (id, tenant_id, at, action, actor_kind, actor_id, actor_name, notification_id, delivery_id, campaign_id, device_id, detail_json, subject_id, ip)
VALUES (@id, @tenant_id, @at, @action, @actor_kind, @actor_id, @actor_name, @notification_id, @delivery_id, @campaign_id, @device_id, @detail_json, @subject_id, @ip);

-- name: operator_actions_for_delivery
-- params: @tenant_id, @delivery_id
SELECT * FROM operator_actions WHERE delivery_id = @delivery_id AND tenant_id = @tenant_id ORDER BY at, id;

-- name: operator_actions_for_notification
-- params: @tenant_id, @notification_id
SELECT * FROM operator_actions WHERE notification_id = @notification_id AND tenant_id = @tenant_id ORDER BY at, id;

-- name: operator_actions_for_campaign
-- params: @tenant_id, @campaign_id
SELECT * FROM operator_actions WHERE campaign_id = @campaign_id AND tenant_id = @tenant_id ORDER BY at, id;

-- name: operator_actions_for_device
-- params: @tenant_id, @device_id
-- The device's own actions, and the retries of single messages it was offered (POST /v1/deliveries/:id/retry names no device).
SELECT * FROM operator_actions
WHERE tenant_id = @tenant_id
  AND (device_id = @device_id OR (action = 'retry' AND delivery_id IN (SELECT delivery_id FROM device_offers WHERE device_id = @device_id)))
ORDER BY at, id;

-- name: operator_actions_page
-- The trail is append-only: there is no update or delete statement for this table.
-- params: @tenant_id, @cursor (an action id, or NULL for the newest), @limit
SELECT * FROM operator_actions WHERE tenant_id = @tenant_id AND (@cursor IS NULL OR id < @cursor) ORDER BY id DESC LIMIT @limit;
