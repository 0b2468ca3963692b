-- Columns every delivery view reads (kept in one place by the driver).

-- name: delivery_insert
-- params: @id, @notification_id, @tenant_id, @position, @channel, @purpose, @provider_account,
--         @destination, @idempotency_key, @expires_at, @next_attempt_at (send_at, else @now), @now
INSERT INTO deliveries (id, notification_id, tenant_id, position, channel, purpose, provider_account, destination,
                        idempotency_key, state, next_attempt_at, expires_at, created_at, updated_at)
VALUES (@id, @notification_id, @tenant_id, @position, @channel, @purpose, @provider_account, @destination,
        @idempotency_key, 'ready', @next_attempt_at, @expires_at, @now, @now);

-- name: delivery_get
-- params: @id
SELECT * FROM deliveries WHERE id = @id;

-- name: deliveries_by_notification
-- params: @notification_id
SELECT * FROM deliveries WHERE notification_id = @notification_id ORDER BY position;

-- name: attempts_by_notification
-- params: @notification_id
SELECT a.* FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE d.notification_id = @notification_id ORDER BY a.delivery_id, a.number;

-- name: count_by_state
-- params: none
SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state;
