-- 0018_campaign_templates: campaigns that render a template per recipient (docs/campaigns.md),
-- and erasures listed per tenant (GET /v1/erasures).
-- A campaign names a template and the version pinned at its creation (content_json then holds
-- the sealed JSON `null`); each audience row may carry the recipient's template data, sealed
-- like content (content-cipher.ts, bound to audience_recipients.data_json:<audience>/<position>);
-- a recipient whose message cannot be built at fan-out is recorded with the reason.

ALTER TABLE campaigns ADD COLUMN template_id TEXT;
ALTER TABLE campaigns ADD COLUMN template_version INTEGER CHECK (template_version >= 1);

ALTER TABLE audience_recipients ADD COLUMN data_json TEXT;

-- One row per audience position fan-out refused (a render error, a part over its channel's
-- limit, data intake refuses): never sent, counted in campaigns.skipped, never updated.
-- `code` is the problem code intake would have answered (src/errors.ts), `reason` its detail.
CREATE TABLE campaign_refusals (
  campaign_id   TEXT NOT NULL REFERENCES campaigns(id),
  position      INTEGER NOT NULL CHECK (position >= 1),
  line          INTEGER NOT NULL,
  recipient_id  TEXT NOT NULL,
  code          TEXT NOT NULL,
  reason        TEXT NOT NULL,
  locale        TEXT,
  created_at    INTEGER NOT NULL,
  PRIMARY KEY (campaign_id, position)
) WITHOUT ROWID;

-- GET /v1/erasures: one tenant's erasures, newest first (retention batches are recorded per
-- tenant from here on; rows recorded before, with no tenant, are listed to no tenant).
CREATE INDEX erasures_tenant ON erasures (tenant_id, id);
