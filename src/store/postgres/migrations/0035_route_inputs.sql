-- 0035_route_inputs: what failover and the route evaluator read that was not kept (docs/routing.md, issue 27).

-- When the account's current throttling pause began (epoch ms), on the account's own limiter row
-- (lane '*'), beside paused_until (0013). Kept while a 429 extends the pause (or comes within
-- PAUSE_CONTINUES_WITHIN_MS of its end: the first calls let through after a pause are answered
-- 429 again), set anew when a pause begins after one that lapsed. Read only while paused_until is
-- still ahead: a lapsed pause has no beginning. NULL: never paused since this migration.
ALTER TABLE rate_limiters ADD COLUMN paused_since BIGINT;

-- The account a delivery was created on, written by its first move to another account of its
-- route (NULL: it never moved). The delivery keeps its idempotency key on this account; on any
-- other it sends under a key of that account's own (domain/identity.ts accountIdempotencyKey), so
-- two accounts of one provider that deduplicate across accounts do not take the moved send for
-- the first one again. No index: read with the row, never searched.
ALTER TABLE deliveries ADD COLUMN origin_account TEXT;
