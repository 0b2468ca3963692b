-- 0004_preferences: recipients' opt-outs, and server secrets (the key that signs one-click
-- unsubscribe links). The suppression list itself is 0002's `suppressions`. Times are epoch
-- milliseconds (BIGINT), as everywhere.

-- One row per opt-out. `*` means every channel, or every optional purpose (NULLs are never
-- equal, so they cannot be part of the key). Only the optional purposes can be opted out of:
-- codes, receipts and alerts always go (src/domain/preferences.ts).
CREATE TABLE recipient_preferences (
  tenant_id     TEXT NOT NULL REFERENCES tenants(id),
  recipient_id  TEXT NOT NULL,
  channel       TEXT NOT NULL CHECK (channel IN ('*', 'email', 'sms', 'push')),
  purpose       TEXT NOT NULL CHECK (purpose IN ('*', 'marketing', 'conversational')),
  source        TEXT NOT NULL CHECK (source IN ('api', 'one_click')),
  opted_out_at  BIGINT NOT NULL,
  -- The send-time check looks up (tenant, recipient) with channel in ('*', <channel>).
  PRIMARY KEY (tenant_id, recipient_id, channel, purpose)
);

-- Secrets every Herald process must agree on, created by the first process that needs one.
CREATE TABLE server_secrets (
  name        TEXT PRIMARY KEY,
  value       TEXT NOT NULL,
  created_at  BIGINT NOT NULL
);
