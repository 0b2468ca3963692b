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

/**
 * When a recipient's wave may go, per time zone, from the campaign's stored plan (`plan.waves`,
 * epoch ms): empty when the plan has no waves (no rate, or a plan stored before waves).
 */
export function waveStarts(plan: unknown): ReadonlyMap<string, number> {
  const out = new Map<string, number>();
  const waves = typeof plan === 'object' && plan !== null ? (plan as { waves?: unknown }).waves : null;
  if (!Array.isArray(waves)) return out;
  for (const w of waves as unknown[]) {
    if (typeof w !== 'object' || w === null) continue;
    const { time_zone: zone, send_from: from } = w as { time_zone?: unknown; send_from?: unknown };
    if (typeof zone === 'string' && typeof from === 'number' && Number.isFinite(from)) out.set(zone, from);
  }
  return out;
}

/**
 * A recipient's due time and expiry when its wave goes later than the campaign's messages would
 * otherwise be due, or null when it does not (no wave for the zone, a wave already due, or one
 * that starts at or after the expiry: the send-time check then holds it and expires it, as
 * before). The expiry is the one the message would have without the wave (ttl counted from the
 * campaign's due time: `send_at` while it is ahead, else fan-out), so waiting for the wave never
 * makes a message live longer.
 */
export function waveSchedule(
  c: Pick<CampaignRecord, 'ttlMs' | 'sendAt'>,
  waveFrom: number | undefined,
  now: number,
): { sendAt: number; expiresAt: number } | null {
  if (waveFrom === undefined) return null;
  const dueAt = c.sendAt !== null && c.sendAt > now ? c.sendAt : now;
  const expiresAt = dueAt + Math.round(c.ttlMs / 1000) * 1000;
  return waveFrom > dueAt && waveFrom < expiresAt ? { sendAt: waveFrom, expiresAt } : null;
}

/**
 * The request POST /v1/notifications would take for this recipient of the campaign; `wave`
 * (waveSchedule) makes it due at its wave's start with the expiry it would have had anyway.
 */
export function recipientRequest(c: CampaignMessage, row: AudienceRow, wave: { sendAt: number; expiresAt: number } | null = null): NotificationRequest {
  if (wave !== null) {
    const { ttl_seconds: _ttl, send_at: _sendAt, ...rest } = recipientRequest(c, row);
    return { ...rest, send_at: new Date(wave.sendAt).toISOString(), expires_at: new Date(wave.expiresAt).toISOString() };
  }
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
