-- 0034_campaign_send_at: a campaign may name when its messages become due (send_at, epoch ms;
-- docs/scheduling.md "Send later", issue 28). Its plan and waves start there, and fan-out gives
-- each notification it makes that send_at, so its deliveries are ready with next_attempt_at =
-- send_at: nothing claims them before it, and a cancel before it ends them all unsent. NULL: due
-- when the campaign starts, as before.
ALTER TABLE campaigns ADD COLUMN send_at BIGINT;
