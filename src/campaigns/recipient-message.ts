/**
 * One audience row as the notification request fan-out builds for it: the campaign's content, or
 * its pinned template with the row's own `data` rendered in the recipient's locale. Campaign
 * creation builds the first row's the same way, so a template that cannot render is refused
 * before anything is stored. Also: which refusals belong to one recipient (recorded, the others
 * go on) rather than to the campaign (the batch stops and is retried).
 */
import type { ErrorCode } from '../errors.js';
import type { NotificationRequest } from '../intake/notification-request.js';
import type { AudienceRow, CampaignRecord } from '../store/campaign-store.js';

/** The campaign fields a recipient's request is built from. */
export type CampaignMessage = Pick<CampaignRecord, 'id' | 'channel' | 'purpose' | 'content' | 'template' | 'ttlMs' | 'metadata' | 'sendAt'>;

/**
 * Problems of one recipient's own message: its data (intake's rules), its rendering (an undefined
 * variable, a filter error, a locale whose parts lack the channel) or its size (a part over the
 * channel's or the account's limit). Anything else (no provider account for the channel) is the
 * campaign's, not the recipient's.
 */
export const RECIPIENT_REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'validation_failed',
  'template_render_failed',
  'template_part_missing',
  'template_content_too_large',
  'content_too_large',
  // The SMS country allow-list and refused number types (docs/abuse-limits.md).
  'country_not_allowed',
  'number_type_not_allowed',
]);

/** The request POST /v1/notifications would take for this recipient of the campaign. */
export function recipientRequest(c: CampaignMessage, row: AudienceRow): NotificationRequest {
  return {
    recipient: row.recipient,
    purpose: c.purpose,
    channels: [c.channel],
    ...(c.content !== null ? { content: c.content } : {}),
    ...(c.template !== null ? { template: { id: c.template.id, version: c.template.version, data: row.data ?? {} } } : {}),
    group: { key: `cmp:${c.id}:${row.recipient.id}`, generation: 1 },
    ttl_seconds: Math.round(c.ttlMs / 1000),
    // Ready with next_attempt_at = send_at while it is ahead (its ttl counts from there); once it has passed, due now.
    ...(c.sendAt !== null ? { send_at: new Date(c.sendAt).toISOString() } : {}),
    metadata: { ...c.metadata, campaign_id: c.id },
  };
}
