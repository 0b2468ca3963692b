-- 0016_retention: what the retention job and a recipient's erasure change (docs/retention.md,
-- src/store/retention-store.ts). Content is erased in place: content_json becomes a marker that
-- names what was removed, when and why, and content_erased_at says it happened.

ALTER TABLE notifications ADD COLUMN content_erased_at BIGINT;
-- One-time codes whose content may go once settled and expired, oldest expiry first.
CREATE INDEX notifications_otp_retention ON notifications (expires_at) WHERE purpose = 'otp' AND content_erased_at IS NULL;
-- Content still held, by purpose and age: the retention window's scan.
CREATE INDEX notifications_content_retention ON notifications (purpose, created_at) WHERE content_erased_at IS NULL;
-- The recipient erasure's look-up is notifications_recipient (0014, the message list's search).

-- A masked destination: destination becomes 'masked' and this keeps HMAC-SHA256(server secret
-- destination-hash, channel:destination) in hex, so "was this address sent to?" can still be
-- answered by hashing the question; never the address itself.
ALTER TABLE deliveries ADD COLUMN destination_hash TEXT;
CREATE INDEX deliveries_destination_retention ON deliveries (created_at) WHERE destination_hash IS NULL;

-- What was erased: one row per retention batch or recipient erasure, never updated.
CREATE TABLE erasures (
  id            BIGSERIAL PRIMARY KEY,
  cause         TEXT NOT NULL CHECK (cause IN ('retention', 'recipient_request')),
  what          TEXT NOT NULL CHECK (what IN ('otp_content', 'content', 'destinations', 'recipient')),
  tenant_id     TEXT,
  recipient_id  TEXT,
  count         INTEGER NOT NULL CHECK (count >= 0),
  details_json  TEXT,
  created_at    BIGINT NOT NULL
);
CREATE INDEX erasures_created ON erasures (created_at);
