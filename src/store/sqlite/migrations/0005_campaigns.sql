-- 0005_campaigns: stored recipient profiles, audiences (uploaded or inline recipient lists,
-- written as they are parsed), campaigns, and the link from a delivery to its campaign with
-- the hold a pause puts on it. Times are epoch milliseconds. The campaign statuses match
-- src/domain/campaign-status.ts.

-- A tenant's recipients, so a campaign's audience can be a list of ids (PUT /v1/recipients/:id).
CREATE TABLE recipients (
  tenant_id   TEXT NOT NULL REFERENCES tenants(id),
  id          TEXT NOT NULL,
  email       TEXT,
  phone       TEXT,
  push_token  TEXT,
  locale      TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, id)
);

-- An audience is `loading` while its rows are written (batch by batch, as the upload is
-- parsed) and `ready` once every row was valid; a failed upload is deleted. The with_*
-- counts say, without a scan, whether every row has an address for a channel.
CREATE TABLE audiences (
  id               TEXT PRIMARY KEY,
  tenant_id        TEXT NOT NULL REFERENCES tenants(id),
  status           TEXT NOT NULL CHECK (status IN ('loading', 'ready')),
  source           TEXT NOT NULL CHECK (source IN ('ndjson', 'csv', 'inline', 'recipient_ids')),
  size             INTEGER NOT NULL DEFAULT 0,
  duplicates       INTEGER NOT NULL DEFAULT 0,
  with_email       INTEGER NOT NULL DEFAULT 0,
  with_phone       INTEGER NOT NULL DEFAULT 0,
  with_push_token  INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  sealed_at        INTEGER,
  CHECK ((status = 'ready') = (sealed_at IS NOT NULL))
);
CREATE INDEX audiences_loading ON audiences (created_at) WHERE status = 'loading';

-- One row per recipient, in upload order (position), with the source line for error messages.
-- WITHOUT ROWID: the table is its (audience_id, position) index, which fan-out walks in order.
CREATE TABLE audience_recipients (
  audience_id   TEXT NOT NULL REFERENCES audiences(id) ON DELETE CASCADE,
  position      INTEGER NOT NULL CHECK (position >= 1),
  line          INTEGER NOT NULL,
  recipient_id  TEXT NOT NULL,
  email         TEXT,
  phone         TEXT,
  push_token    TEXT,
  locale        TEXT,
  PRIMARY KEY (audience_id, position)
) WITHOUT ROWID;
-- A recipient once per audience: a repeated id is skipped (counted in audiences.duplicates).
CREATE UNIQUE INDEX audience_recipients_id ON audience_recipients (audience_id, recipient_id);

CREATE TABLE campaigns (
  id                   TEXT PRIMARY KEY,
  tenant_id            TEXT NOT NULL REFERENCES tenants(id),
  name                 TEXT,
  status               TEXT NOT NULL CHECK (status IN ('draft', 'running', 'paused', 'completed', 'cancelled')),
  channel              TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
  purpose              TEXT NOT NULL CHECK (purpose IN ('marketing', 'transactional')),
  provider_account     TEXT NOT NULL,
  lane                 TEXT NOT NULL,
  content_json         TEXT NOT NULL,
  metadata_json        TEXT,
  ttl_ms               INTEGER NOT NULL CHECK (ttl_ms > 0),
  audience_id          TEXT NOT NULL REFERENCES audiences(id),
  audience_size        INTEGER NOT NULL CHECK (audience_size >= 0),
  deadline_at          INTEGER NOT NULL,
  plan_json            TEXT NOT NULL,
  -- Fan-out cursor: the last audience position turned into a notification (or skipped).
  fanned_out_position  INTEGER NOT NULL DEFAULT 0,
  fanned_out           INTEGER NOT NULL DEFAULT 0,
  -- Rows intake refused at fan-out (a rule added after the audience was loaded); never sent.
  skipped              INTEGER NOT NULL DEFAULT 0,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL,
  started_at           INTEGER,
  paused_at            INTEGER,
  -- Set once nothing more will happen: completed, or cancelled with nothing left queued.
  finished_at          INTEGER,
  CHECK ((status = 'paused') = (paused_at IS NOT NULL)),
  CHECK (status <> 'completed' OR finished_at IS NOT NULL),
  CHECK (fanned_out + skipped <= audience_size)
);
CREATE INDEX campaigns_active ON campaigns (id) WHERE finished_at IS NULL AND status IN ('running', 'paused', 'cancelled');
CREATE INDEX campaigns_tenant ON campaigns (tenant_id, id);

-- The campaign a delivery was fanned out for (NULL for every other delivery), and, while the
-- campaign is paused, the delivery's real next_attempt_at (next_attempt_at itself is moved to a
-- time no claim reaches; see CAMPAIGN_HOLD_UNTIL).
ALTER TABLE deliveries ADD COLUMN campaign_id TEXT;
ALTER TABLE deliveries ADD COLUMN held_next_attempt_at INTEGER;
-- Progress counts, pause and resume read a campaign's deliveries through this index alone.
CREATE INDEX deliveries_campaign ON deliveries (campaign_id, state, terminal_reason, downstream_status, held_next_attempt_at)
  WHERE campaign_id IS NOT NULL;
