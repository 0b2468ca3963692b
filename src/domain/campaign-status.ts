/**
 * A campaign's life: `draft` (planned, waiting for the caller to start it) → `running`
 * (fanning out and sending) ⇄ `paused` → `completed` (every recipient fanned out and every
 * delivery settled) or `cancelled`. The store applies these transitions as guarded updates
 * (`from` is the WHERE clause); the CHECK on campaigns.status lists the same statuses, and
 * docs/campaigns.md shows the same table (test/domain/campaign-status.test.ts compares them).
 */

export const CAMPAIGN_STATUSES = ['draft', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_ACTIONS = ['start', 'pause', 'resume', 'cancel', 'complete'] as const;
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

/** Which statuses each action leaves from, and where it goes. `complete` is the campaign runner's, never the caller's. */
export const CAMPAIGN_TRANSITIONS: Readonly<Record<CampaignAction, { from: readonly CampaignStatus[]; to: CampaignStatus }>> = {
  start: { from: ['draft'], to: 'running' },
  pause: { from: ['running'], to: 'paused' },
  resume: { from: ['paused'], to: 'running' },
  cancel: { from: ['draft', 'running', 'paused'], to: 'cancelled' },
  complete: { from: ['running'], to: 'completed' },
};

/** The purposes a campaign may carry: bulk traffic only (codes and alerts are one-to-one, never campaigns). */
export const CAMPAIGN_PURPOSES = ['marketing', 'transactional'] as const;
export type CampaignPurpose = (typeof CAMPAIGN_PURPOSES)[number];

/**
 * `next_attempt_at` of a paused campaign's queued deliveries: 9999-12-31, a time no claim
 * reaches. The real time is kept in `held_next_attempt_at` and restored on resume, so pausing
 * needs no change to the claim queries.
 */
export const CAMPAIGN_HOLD_UNTIL = Date.UTC(9999, 11, 31);
