-- 0026_inbound: two-way SMS (docs/inbound.md): messages people send back, from phones and from
-- providers' inbound webhooks; the event ids already taken (webhook deduplication); STOP
-- keyword suppressions with their source; the phones' own health reports. Times are epoch ms.

-- One incoming message. The sender is kept as the keyed hash retention gives a masked
-- destination (HMAC-SHA256 under the `destination-hash` secret over "sms:" + number), so a
-- reply links to deliveries even after their destinations were masked; the number itself and
-- the text are sealed together in content_sealed (AES-GCM bound to this row, as notification
-- content), which retention erases (content_erased_at set, content_sealed NULL).
CREATE TABLE inbound_messages (
  id                  TEXT PRIMARY KEY,
  tenant_id           TEXT NOT NULL,
  provider_account    TEXT NOT NULL,
  source              TEXT NOT NULL CHECK (source IN ('phone', 'twilio', 'telnyx')),
  -- The phone's or provider's id of the message: one row per (account, external id).
  external_id         TEXT NOT NULL,
  device_id           TEXT,
  sim_number          INTEGER CHECK (sim_number IS NULL OR sim_number BETWEEN 1 AND 3),
  kind                TEXT NOT NULL CHECK (kind IN ('sms', 'data', 'mms')),
  sender_hash         TEXT NOT NULL,
  content_sealed      TEXT,
  content_erased_at   BIGINT,
  keyword             TEXT CHECK (keyword IN ('stop', 'start', 'help')),
  -- The last notification sent to this number on this account before the message came, if any.
  reply_to_notification_id TEXT,
  received_at         BIGINT NOT NULL,
  recorded_at         BIGINT NOT NULL,
  UNIQUE (provider_account, external_id),
  CHECK ((content_sealed IS NULL) = (content_erased_at IS NOT NULL))
);
CREATE INDEX inbound_messages_tenant ON inbound_messages (tenant_id, received_at DESC, id DESC);
CREATE INDEX inbound_messages_sender ON inbound_messages (tenant_id, sender_hash, received_at DESC);
CREATE INDEX inbound_messages_device ON inbound_messages (device_id, received_at DESC) WHERE device_id IS NOT NULL;
CREATE INDEX inbound_messages_retention ON inbound_messages (recorded_at) WHERE content_sealed IS NOT NULL;

-- Webhook events already taken, per source ("device:<id>", "account:<id>"): a retried or
-- duplicated event is answered 2xx and changes nothing. Pruned after the senders stop retrying
-- (the SMSGate app: about two days).
CREATE TABLE inbound_event_ids (
  source      TEXT NOT NULL,
  event_id    TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  PRIMARY KEY (source, event_id)
);
CREATE INDEX inbound_event_ids_created ON inbound_event_ids (created_at);

-- A STOP: nothing of the tenant goes to this number on this channel, but the purposes the
-- operator exempted (checked at send time). The destination is in clear, as in `suppressions`
-- (the send-time check compares it with the delivery's). START deletes the row.
CREATE TABLE keyword_suppressions (
  tenant_id         TEXT NOT NULL,
  channel           TEXT NOT NULL CHECK (channel = 'sms'),
  destination       TEXT NOT NULL,
  keyword           TEXT NOT NULL,
  provider_account  TEXT NOT NULL,
  inbound_id        TEXT NOT NULL,
  created_at        BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, channel, destination)
);

-- What a phone said about itself (system:ping), one row per report; the newest is the current
-- health, the last 24 h the chart. Pruned past the look-back.
CREATE TABLE device_health_samples (
  device_id         TEXT NOT NULL,
  at                BIGINT NOT NULL,
  battery_percent   INTEGER CHECK (battery_percent IS NULL OR battery_percent BETWEEN 0 AND 100),
  charging          BOOLEAN,
  internet          BOOLEAN,
  transports        TEXT,
  cellular          TEXT,
  signal            INTEGER,
  failed_last_hour  INTEGER,
  app_version       TEXT,
  PRIMARY KEY (device_id, at)
);
CREATE INDEX device_health_samples_at ON device_health_samples (at);
