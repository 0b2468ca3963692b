-- Routes and failover (docs/routing.md): the demotion evaluator's figures and its changes.

-- name: route_change_record
-- One demotion or restoration as the route's change number @seq (its last + 1): a second
-- process that evaluated the same last state finds the number taken and records nothing.
-- params: @route_key, @seq, @provider_account, @action, @reasons, @accepted, @slow, @calls, @failures, @paused_since, @decided_at
INSERT INTO route_changes (route_key, seq, provider_account, action, reasons, accepted, slow, calls, failures, paused_since, decided_at)
VALUES (@route_key, @seq, @provider_account, @action, @reasons, @accepted, @slow, @calls, @failures, @paused_since, @decided_at)
ON CONFLICT (route_key, seq) DO NOTHING;

-- name: route_changes_latest
-- Each account's latest change in each route (a route's last change is among them).
-- params: none
SELECT r.* FROM route_changes r
WHERE r.seq = (SELECT MAX(x.seq) FROM route_changes x WHERE x.route_key = r.route_key AND x.provider_account = r.provider_account);

-- name: route_changes_recent
-- The changes since @since, newest first (the Providers page).
-- params: @since, @limit
SELECT * FROM route_changes WHERE decided_at >= @since ORDER BY decided_at DESC, seq DESC LIMIT @limit;

-- name: route_account_figures
-- Per account, the deliveries it accepted since @since and how many of them were slow: delivered
-- (the first delivered/read callback received) more than @slow_after_ms after the acceptance, or
-- not delivered @slow_after_ms after it. A delivery shown delivered without a callback (a phone's
-- report) counts as on time. mean_delivered_ms: the mean acceptance → delivered time of those
-- with a delivered callback (null without one), which orders a route by latency.
-- params: @since, @now, @slow_after_ms
SELECT f.provider_account AS provider_account,
       COUNT(*) AS accepted,
       COALESCE(SUM(CASE
         WHEN f.delivered THEN CASE WHEN COALESCE(f.callback_at, f.finished_at) - f.finished_at > @slow_after_ms THEN 1 ELSE 0 END
         WHEN @now - f.finished_at > @slow_after_ms THEN 1
         ELSE 0 END), 0) AS slow,
       AVG(f.callback_at - f.finished_at) AS mean_delivered_ms
FROM (SELECT d.provider_account AS provider_account, a.finished_at AS finished_at,
             d.downstream_status IN ('delivered', 'read') AS delivered,
             CASE WHEN d.downstream_status IN ('delivered', 'read') THEN
               (SELECT MIN(e.received_at) FROM provider_events e WHERE e.delivery_id = a.delivery_id AND e.status IN ('delivered', 'read'))
             END AS callback_at
      FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE a.outcome = 'accepted' AND a.finished_at >= @since) f
GROUP BY f.provider_account;

-- name: route_account_pauses
-- The accounts throttling has paused past @now (their own limiter row, lane '*', migrations 0013
-- and 0035): until when, and since when without a break (NULL: paused before 0035 recorded it).
-- params: @now
SELECT provider_account, paused_since, paused_until FROM rate_limiters
WHERE lane = '*' AND paused_until > @now;
