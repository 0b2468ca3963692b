-- name: operator_actions_insert
-- params: @id, @tenant_id, @at, @action, @actor_kind, @actor_id, @actor_name, @notification_id, @delivery_id, @campaign_id, @device_id, @detail_json
INSERT INTO operator_actions (id, tenant_id, at, action, actor_kind, actor_id, actor_name, notification_id, delivery_id, campaign_id, device_id, detail_json)
VALUES (@id, @tenant_id, @at, @action, @actor_kind, @actor_id, @actor_name, @notification_id, @delivery_id, @campaign_id, @device_id, @detail_json);

-- name: operator_actions_for_delivery
-- params: @tenant_id, @delivery_id
SELECT * FROM operator_actions WHERE delivery_id = @delivery_id AND tenant_id = @tenant_id ORDER BY at, id;

-- name: operator_actions_for_notification
-- params: @tenant_id, @notification_id
SELECT * FROM operator_actions WHERE notification_id = @notification_id AND tenant_id = @tenant_id ORDER BY at, id;
