-- 0007_push_subscriptions: a recipient's devices, each registered with one push service.
-- A push notification to a recipient without a push_token goes to every active subscription,
-- one delivery each. A subscription a push service refused as unregistered or malformed is
-- deactivated (when, why, the provider's code) and never sent to again. target_hash (SHA-256
-- of the encoded target, the delivery's destination) finds the subscription from a delivery.
CREATE TABLE push_subscriptions (
  tenant_id           TEXT NOT NULL,
  recipient_id        TEXT NOT NULL,
  id                  TEXT NOT NULL,
  type                TEXT NOT NULL CHECK (type IN ('fcm', 'apns', 'webpush')),
  target              TEXT NOT NULL,
  target_hash         TEXT NOT NULL,
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL,
  deactivated_at      INTEGER,
  deactivated_reason  TEXT CHECK (deactivated_reason IN ('removed', 'unregistered', 'bad_token')),
  deactivated_code    TEXT,
  PRIMARY KEY (tenant_id, recipient_id, id),
  CHECK ((deactivated_at IS NULL) = (deactivated_reason IS NULL))
);
CREATE INDEX push_subscriptions_target ON push_subscriptions (tenant_id, target_hash);
