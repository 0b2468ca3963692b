-- Routes and failover (docs/routing.md): the demotion evaluator's figures and its changes.

-- name: route_change_record
-- One demotion or restoration as the route's change number $2 (its last + 1): a second
-- process that evaluated the same last state finds the number taken and records nothing.
-- params: $1 route_key, $2 seq, $3 provider_account, $4 action, $5 reasons, $6 accepted, $7 slow, $8 calls, $9 failures, $10 paused_since, $11 decided_at
INSERT INTO route_changes (route_key, seq, provider_account, action, reasons, accepted, slow, calls, failures, paused_since, decided_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (route_key, seq) DO NOTHING;

-- name: route_changes_latest
-- Each account's latest change in each route (a route's last change is among them).
-- params: none
SELECT r.* FROM route_changes r
WHERE r.seq = (SELECT MAX(x.seq) FROM route_changes x WHERE x.route_key = r.route_key AND x.provider_account = r.provider_account);

-- name: route_changes_recent
-- The changes since $1, newest first (the Providers page).
-- params: $1 since, $2 limit
SELECT * FROM route_changes WHERE decided_at >= $1 ORDER BY decided_at DESC, seq DESC LIMIT $2;

-- name: route_account_figures
-- Per account, the deliveries it accepted since $1 and how many of them were slow: delivered
-- (the first delivered/read callback received) more than $3 ms after the acceptance, or
-- not delivered $3 ms after it. A delivery shown delivered without a callback (a phone's
-- report) counts as on time. mean_delivered_ms: the mean acceptance → delivered time of those
-- with a delivered callback (null without one), which orders a route by latency.
-- params: $1 since, $2 now, $3 slow_after_ms
SELECT f.provider_account AS provider_account,
       COUNT(*)::int AS accepted,
       COALESCE(SUM(CASE
         WHEN f.delivered THEN CASE WHEN COALESCE(f.callback_at, f.finished_at) - f.finished_at > $3 THEN 1 ELSE 0 END
         WHEN $2 - f.finished_at > $3 THEN 1
         ELSE 0 END), 0)::int AS slow,
       AVG(f.callback_at - f.finished_at)::float8 AS mean_delivered_ms
FROM (SELECT d.provider_account AS provider_account, a.finished_at AS finished_at,
             d.downstream_status IN ('delivered', 'read') AS delivered,
             CASE WHEN d.downstream_status IN ('delivered', 'read') THEN
               (SELECT MIN(e.received_at) FROM provider_events e WHERE e.delivery_id = a.delivery_id AND e.status IN ('delivered', 'read'))
             END AS callback_at
      FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE a.outcome = 'accepted' AND a.finished_at >= $1) f
GROUP BY f.provider_account;

-- name: route_account_pauses
-- The accounts throttling has paused past $1 (their own limiter row, lane '*', migrations 0013
-- and 0035): until when, and since when without a break (NULL: paused before 0035 recorded it).
-- params: $1 now
SELECT provider_account, paused_since, paused_until FROM rate_limiters
WHERE lane = '*' AND paused_until > $1;
