-- 0028_delivery_index_diet (issue 24 item 3): drops deliveries_terminal_at (updated_at) WHERE
-- state = 'terminal'. deliveries_terminal_recent (0017: updated_at, provider_account,
-- terminal_reason, the same predicate) leads with the same column, so every statement that
-- walked the one walks the other (test/store/delivery-indexes.test.ts shows the plans); one
-- index entry fewer on every transition into terminal, and updated_at indexed twice, not three times.
DROP INDEX IF EXISTS deliveries_terminal_at;
