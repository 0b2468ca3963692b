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

-- name: deliveries_list
-- Newest first; the cursor is the last id of the previous page.
-- params: $1 tenant_id, $2 state, $3 channel, $4 purpose, $5 before, $6 limit (filters NULL when absent)
SELECT * FROM deliveries
WHERE tenant_id = $1
  AND ($2::text IS NULL OR state = $2)
  AND ($3::text IS NULL OR channel = $3)
  AND ($4::text IS NULL OR purpose = $4)
  AND ($5::text IS NULL OR id < $5)
ORDER BY id DESC
LIMIT $6;

-- name: count_by_state
SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state;
