-- 0002_evidence: provider callback events (deduplicated by the provider's event id, parked until
-- their delivery is known), the suppression list they feed, and what reconciliation did about
-- each ambiguous attempt. Times are epoch milliseconds.

CREATE TABLE provider_events (
  id                   BIGSERIAL PRIMARY KEY,
  provider_account     TEXT NOT NULL,
  event_id             TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('accepted', 'sent', 'delivered', 'read', 'bounced', 'failed', 'complained')),
  provider_message_id  TEXT,
  -- Herald's idempotency key, where the provider echoes it back.
  reference            TEXT,
  suppress             TEXT CHECK (suppress IN ('bounced', 'complained')),
  occurred_at          BIGINT,
  received_at          BIGINT NOT NULL,
  -- Set once the event has been matched and merged (or given up on after retention).
  delivery_id          TEXT,
  applied_at           BIGINT,
  outcome              TEXT CHECK (outcome IN ('applied', 'no_change', 'orphaned')),
  CHECK ((applied_at IS NULL) = (outcome IS NULL)),
  -- One row per provider event: a repeated callback is a duplicate, answered 2xx and ignored.
  UNIQUE (provider_account, event_id)
);
CREATE INDEX provider_events_pending ON provider_events (id) WHERE applied_at IS NULL;
CREATE INDEX provider_events_applied ON provider_events (applied_at) WHERE applied_at IS NOT NULL;

-- Callbacks name the provider's message id; reconciliation and evidence find deliveries by it.
CREATE INDEX deliveries_provider_message ON deliveries (provider_account, provider_message_id) WHERE provider_message_id IS NOT NULL;
-- The reconciler's queue: unknown deliveries, oldest first.
CREATE INDEX deliveries_unknown ON deliveries (updated_at) WHERE state = 'unknown';
-- When the reconciler looks at an unknown delivery again (NULL: at once).
ALTER TABLE deliveries ADD COLUMN reconcile_at BIGINT;

-- Addresses a tenant must not send to on a channel: hard bounces and complaints add them.
CREATE TABLE suppressions (
  tenant_id           TEXT NOT NULL,
  channel             TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
  destination         TEXT NOT NULL,
  reason              TEXT NOT NULL CHECK (reason IN ('bounced', 'complained', 'manual')),
  source_delivery_id  TEXT,
  created_at          BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, channel, destination)
);

-- The ambiguity policy the reconciler applied to an attempt that ended unknown, and how the
-- ambiguity ended. Shown in the API with the attempt.
ALTER TABLE attempts ADD COLUMN ambiguity_policy TEXT CHECK (ambiguity_policy IN ('wait_for_evidence', 'resend_same_key', 'user_resend', 'accept_duplicate'));
ALTER TABLE attempts ADD COLUMN resolution TEXT CHECK (resolution IN ('found_by_lookup', 'not_found_by_lookup', 'callback', 'window_closed', 'policy_resend', 'policy_user_resend'));
