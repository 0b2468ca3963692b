-- 0029_failed_messages (issue 25 item 1): the one definition of a failed message, as a view every
-- count of failures reads (observability.sql: the stats, the /metrics gauges, the operator alerts,
-- the overview's failures chart). The same predicate as isFailedMessage (src/domain/failed-message.ts);
-- test/store/failed-messages-conformance.ts holds the two together. A message failed when its
-- delivery ended terminal for a failure reason (rejected, exhausted, unresolved, or expired without
-- ever being accepted), or waits to retry after a definite refusal (its last attempt's outcome was
-- retryable, throttled or permanent, or the phone failed the current offer before sending it). A
-- phone offer (an attempt `unknown`, code `offered`), an unknown settled by evidence, a resend by
-- ambiguity policy and a superseded, cancelled, suppressed or held message are not failures.
-- failed_at is when the delivery entered its failed state (its updated_at: nothing else moves a
-- retryable or terminal row's updated_at). Two branches, each served by a partial index: terminal
-- by deliveries_terminal_recent (updated_at first), retryable by deliveries_due (the state IN term
-- repeats that index's predicate so the planner may use it).
CREATE VIEW failed_messages AS
SELECT d.id, d.tenant_id, d.provider_account, d.channel, d.updated_at AS failed_at
FROM deliveries d
WHERE d.state = 'terminal'
  AND (d.terminal_reason IN ('rejected', 'exhausted', 'unresolved')
       OR (d.terminal_reason = 'expired' AND d.downstream_status IS NULL
           AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = d.id AND a.outcome = 'accepted')))
UNION ALL
SELECT d.id, d.tenant_id, d.provider_account, d.channel, d.updated_at AS failed_at
FROM deliveries d
WHERE d.state IN ('ready', 'retryable') AND d.state = 'retryable'
  AND (EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = d.id AND a.number = d.attempt_count
               AND a.outcome IN ('retryable', 'throttled', 'permanent'))
       OR EXISTS (SELECT 1 FROM device_offers o WHERE o.delivery_id = d.id AND o.attempt_number = d.attempt_count
                  AND NOT o.sent AND o.phone_state IN ('Failed', 'Cancelled')));
