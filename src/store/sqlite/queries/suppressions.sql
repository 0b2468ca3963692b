-- The suppression list: one entry per (tenant, channel, address), whatever added it (a bounce
-- or complaint through evidence, an operator by hand). The same statement names as the
-- PostgreSQL driver's suppressions.sql.

-- name: suppressions_insert
-- One entry, run per evidence write in its transaction (PostgreSQL's takes a batch as arrays);
-- an address already suppressed keeps its entry.
-- params: @tenant_id, @channel, @destination, @reason, @source_delivery_id, @now
INSERT INTO suppressions (tenant_id, channel, destination, reason, source_delivery_id, created_at)
VALUES (@tenant_id, @channel, @destination, @reason, @source_delivery_id, @now)
ON CONFLICT (tenant_id, channel, destination) DO NOTHING;

-- name: suppression_get
-- params: @tenant_id, @channel, @destination
SELECT * FROM suppressions WHERE tenant_id = @tenant_id AND channel = @channel AND destination = @destination;

-- name: suppressions_list
-- params: @tenant_id, @limit
SELECT * FROM suppressions WHERE tenant_id = @tenant_id ORDER BY created_at DESC, destination LIMIT @limit;

-- name: suppression_add_manual
-- An address already suppressed (any reason) is left as it was: changes = 0.
-- params: @tenant_id, @channel, @destination, @now
INSERT INTO suppressions (tenant_id, channel, destination, reason, source_delivery_id, created_at)
VALUES (@tenant_id, @channel, @destination, 'manual', NULL, @now)
ON CONFLICT (tenant_id, channel, destination) DO NOTHING;

-- name: suppression_delete
-- params: @tenant_id, @channel, @destination
DELETE FROM suppressions WHERE tenant_id = @tenant_id AND channel = @channel AND destination = @destination;
