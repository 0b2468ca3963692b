-- name: operator_actions_insert
-- params: $1 id, $2 tenant_id, $3 at, $4 action, $5 actor_kind, $6 actor_id, $7 actor_name, $8 notification_id, $9 delivery_id, $10 campaign_id, $11 device_id, $12 detail_json, $13 subject_id, $14 ip
INSERT INTO operator_actions (id, tenant_id, at, action, actor_kind, actor_id, actor_name, notification_id, delivery_id, campaign_id, device_id, detail_json, subject_id, ip)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14);

-- name: operator_actions_for_delivery
-- params: $1 tenant_id, $2 delivery_id
SELECT * FROM operator_actions WHERE delivery_id = $2 AND tenant_id = $1 ORDER BY at, id;

-- name: operator_actions_for_notification
-- params: $1 tenant_id, $2 notification_id
SELECT * FROM operator_actions WHERE notification_id = $2 AND tenant_id = $1 ORDER BY at, id;

-- name: operator_actions_for_campaign
-- params: $1 tenant_id, $2 campaign_id
SELECT * FROM operator_actions WHERE campaign_id = $2 AND tenant_id = $1 ORDER BY at, id;

-- name: operator_actions_for_device
-- params: $1 tenant_id, $2 device_id
-- The device's own actions, and the retries of single messages it was offered (POST /v1/deliveries/:id/retry names no device).
SELECT * FROM operator_actions
WHERE tenant_id = $1
  AND (device_id = $2 OR (action = 'retry' AND delivery_id IN (SELECT delivery_id FROM device_offers WHERE device_id = $2)))
ORDER BY at, id;

-- name: operator_actions_page
-- The trail is append-only: there is no update or delete statement for this table.
-- params: $1 tenant_id, $2 cursor (an action id, or NULL for the newest), $3 limit
SELECT * FROM operator_actions WHERE tenant_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3;
