-- 0003_webhooks: customer webhook endpoints and the messages the relay fans outbox rows out into.
-- The same tables, columns, names and CHECK lists as the SQLite migration of the same number.
-- Times are epoch milliseconds (BIGINT), as in SQLite.

-- One row per endpoint a tenant registered. The secret signs every request (Standard Webhooks);
-- during a rotation the previous one signs beside it until previous_secret_until. The endpoint
-- as a whole backs off (next_attempt_at) while it keeps failing, so a dead endpoint costs one
-- request per backoff step, not one per pending message. A sender leases it (lease_owner,
-- lease_until) so one process at a time serves it: the per-notification order and the
-- concurrency cap hold across processes.
CREATE TABLE webhook_endpoints (
  id                     TEXT PRIMARY KEY,
  tenant_id              TEXT NOT NULL REFERENCES tenants(id),
  url                    TEXT NOT NULL,
  description            TEXT,
  event_types_json       TEXT NOT NULL,
  secret                 TEXT NOT NULL,
  previous_secret        TEXT,
  previous_secret_until  BIGINT,
  status                 TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  disabled_reason        TEXT CHECK (disabled_reason IN ('gone', 'failing')),
  disabled_at            BIGINT,
  failure_count          INTEGER NOT NULL DEFAULT 0 CHECK (failure_count >= 0),
  failing_since          BIGINT,
  next_attempt_at        BIGINT,
  last_failure_at        BIGINT,
  last_failure_status    INTEGER,
  last_failure_error     TEXT,
  last_success_at        BIGINT,
  lease_owner            TEXT,
  lease_until            BIGINT,
  created_at             BIGINT NOT NULL,
  updated_at             BIGINT NOT NULL,
  -- A disabled endpoint always says why and since when; an active one does neither.
  CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL)),
  CHECK ((disabled_reason IS NULL) = (disabled_at IS NULL)),
  CHECK ((previous_secret IS NULL) = (previous_secret_until IS NULL)),
  CHECK ((failure_count = 0) = (failing_since IS NULL)),
  CHECK ((lease_owner IS NULL) = (lease_until IS NULL))
);
CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id, id);
CREATE INDEX webhook_endpoints_due ON webhook_endpoints (next_attempt_at, id) WHERE status = 'active';

-- One row per (endpoint, outbox row). seq orders an endpoint's messages: the relay assigns it
-- in the order it publishes outbox rows (one relay at a time). id is the webhook-id header,
-- stable across retries. Messages are never given up on: a message that keeps failing keeps
-- its notification's later events waiting (no gaps), and the endpoint is disabled instead.
CREATE TABLE webhook_messages (
  seq              BIGSERIAL PRIMARY KEY,
  id               TEXT NOT NULL UNIQUE,
  endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  tenant_id        TEXT NOT NULL,
  outbox_id        BIGINT NOT NULL,
  notification_id  TEXT NOT NULL,
  delivery_id      TEXT,
  event_type       TEXT NOT NULL,
  payload_json     TEXT NOT NULL,
  event_at         BIGINT NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at  BIGINT NOT NULL,
  last_attempt_at  BIGINT,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     BIGINT,
  created_at       BIGINT NOT NULL,
  UNIQUE (endpoint_id, outbox_id)
);
-- The sender's scan (an endpoint's undelivered messages in order) and its "is there an earlier
-- undelivered message of this notification" probe.
CREATE INDEX webhook_messages_pending ON webhook_messages (endpoint_id, seq) WHERE delivered_at IS NULL;
CREATE INDEX webhook_messages_pending_notification ON webhook_messages (endpoint_id, notification_id, seq) WHERE delivered_at IS NULL;
CREATE INDEX webhook_messages_delivered ON webhook_messages (delivered_at) WHERE delivered_at IS NOT NULL;

-- Pruning published outbox rows after their retention.
CREATE INDEX outbox_published ON outbox (published_at) WHERE published_at IS NOT NULL;
