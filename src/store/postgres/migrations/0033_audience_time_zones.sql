-- 0033_audience_time_zones: an audience row may carry the recipient's IANA time zone
-- (docs/campaign-planning.md, issue 28). Fan-out passes it as recipient.time_zone, so quiet hours
-- hold each recipient in their own zone, and the campaign's plan counts recipients per zone to
-- plan its waves. NULL: the row named none (the send-time check falls back to the stored
-- profile's zone, then the tenant's).
ALTER TABLE audience_recipients ADD COLUMN time_zone TEXT;
