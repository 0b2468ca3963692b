-- name: delivery_get
-- params: $1 id
SELECT * FROM deliveries WHERE id = $1;

-- name: deliveries_by_notification
-- params: $1 notification_id
SELECT * FROM deliveries WHERE notification_id = $1 ORDER BY position;

-- name: attempts_by_notification
-- params: $1 notification_id
SELECT a.* FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE d.notification_id = $1 ORDER BY a.delivery_id, a.number;

-- name: count_by_state
-- params: none
SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state;
