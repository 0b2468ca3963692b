-- The suppression list: one entry per (tenant, channel, address), whatever added it (a bounce
-- or complaint through evidence, an operator by hand). The same statement names as the
-- SQLite driver's suppressions.sql.

-- name: suppressions_insert
-- A batch (the suppressions of one evidence batch); an address already suppressed keeps its entry.
-- params: $1 tenant_ids[], $2 channels[], $3 destinations[], $4 reasons[], $5 source_delivery_ids[], $6 now
INSERT INTO suppressions (tenant_id, channel, destination, reason, source_delivery_id, created_at)
SELECT t, c, d, r, s, $6 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS x(t, c, d, r, s)
ON CONFLICT (tenant_id, channel, destination) DO NOTHING;

-- name: suppression_get
-- params: $1 tenant_id, $2 channel, $3 destination
SELECT * FROM suppressions WHERE tenant_id = $1 AND channel = $2 AND destination = $3;

-- name: suppressions_list
-- params: $1 tenant_id, $2 limit
SELECT * FROM suppressions WHERE tenant_id = $1 ORDER BY created_at DESC, destination LIMIT $2;

-- name: suppression_add_manual
-- An address already suppressed (any reason) is left as it was: no row returned.
-- params: $1 tenant_id, $2 channel, $3 destination, $4 now
INSERT INTO suppressions (tenant_id, channel, destination, reason, source_delivery_id, created_at)
VALUES ($1, $2, $3, 'manual', NULL, $4)
ON CONFLICT (tenant_id, channel, destination) DO NOTHING
RETURNING destination;

-- name: suppression_delete
-- params: $1 tenant_id, $2 channel, $3 destination
DELETE FROM suppressions WHERE tenant_id = $1 AND channel = $2 AND destination = $3
RETURNING destination;
