-- 0030_holds_and_time_zones: what the send-time check of time-aware sending needs on the rows
-- (docs/scheduling.md, issue 28).
--
-- deliveries.hold_reason: why the send-time check last held or ended the delivery instead of
-- calling (quiet_hours, frequency_capped); NULL when it never did. Kept after it goes, so the
-- delay it explains stays visible on the delivery.
ALTER TABLE deliveries ADD COLUMN hold_reason TEXT CHECK (hold_reason IN ('quiet_hours', 'frequency_capped'));

-- The recipient's IANA time zone, for quiet hours: the notification's own (recipient.time_zone
-- at intake) wins over the stored profile's; the tenant's policy is the fallback. Read at send
-- time, so a change of the profile applies to what is already queued.
ALTER TABLE recipients ADD COLUMN time_zone TEXT;
ALTER TABLE notifications ADD COLUMN recipient_time_zone TEXT;
