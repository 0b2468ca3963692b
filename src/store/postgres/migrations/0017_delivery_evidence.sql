-- 0017_delivery_evidence: what the dashboard's message dialog and Providers page read.
--
-- Every look-up the reconciler makes, with what it found and what that led to, so a delivery's
-- evidence (GET /v1/deliveries/{id}/evidence) shows when Herald asked the provider and what the
-- answer was, not only how the attempt's ambiguity finally ended (attempts.resolution).
CREATE TABLE reconcile_lookups (
  id                   BIGSERIAL PRIMARY KEY,
  delivery_id          TEXT NOT NULL REFERENCES deliveries(id),
  attempt_number       INTEGER NOT NULL,
  looked_at            BIGINT NOT NULL,
  -- found: the provider has it; not_found: it says it does not; no_answer: an error or no authoritative answer.
  result               TEXT NOT NULL CHECK (result IN ('found', 'not_found', 'no_answer')),
  -- What the answer led to: the delivery accepted, retryable with the same key, terminal/unresolved, or asked again later.
  led_to               TEXT NOT NULL CHECK (led_to IN ('accepted', 'retryable', 'unresolved', 'asked_later')),
  provider_message_id  TEXT,
  -- The adapter's error code for no_answer (a code, never the provider's message text).
  error_code           TEXT
);
CREATE INDEX reconcile_lookups_delivery ON reconcile_lookups (delivery_id, looked_at);

-- A delivery's callbacks, once merged (provider_events_settle names the delivery).
CREATE INDEX provider_events_delivery ON provider_events (delivery_id, received_at) WHERE delivery_id IS NOT NULL;

-- The Providers page's recent errors (provider_errors_recent) read only what they count: failed
-- calls by when they finished, and terminal deliveries by when they ended, each covering the
-- columns grouped on, so the 24 h window never reads the accepted majority of a day's attempts.
CREATE INDEX attempts_failed_recent ON attempts (finished_at, delivery_id, outcome) WHERE outcome IS NOT NULL AND outcome <> 'accepted';
CREATE INDEX deliveries_terminal_recent ON deliveries (updated_at, provider_account, terminal_reason) WHERE state = 'terminal';
