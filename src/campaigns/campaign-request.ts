/**
 * The body of POST /v1/campaigns: its JSON schema (Fastify validates shape and rejects unknown
 * fields) and the checks a schema cannot express. The message itself (content, ttl, metadata)
 * is checked by intake's own rules, so a campaign cannot hold a message POST /v1/notifications
 * would refuse.
 */
import { CHANNELS, type Channel } from '../domain/index.js';
import { CAMPAIGN_PURPOSES, type CampaignPurpose } from '../domain/campaign-status.js';
import { DEFAULT_SEND_AT_HORIZON_MS } from '../domain/index.js';
import { fieldError, HeraldError } from '../errors.js';
import { checkNotificationRequest, MAX_TTL_SECONDS, notificationRequestSchema } from '../intake/notification-request.js';
import type { MessageContent } from '../domain/index.js';
import type { RecipientInput } from '../store/store.js';

export interface CampaignRequest {
  name?: string;
  channel: Channel;
  purpose: CampaignPurpose;
  content?: MessageContent;
  /** Rendered per recipient with the audience row's `data`, in the recipient's locale; the version is pinned at creation. */
  template?: { id: string; version?: number };
  deadline_at: string;
  /** When its messages become due (RFC 3339, ahead of now and before `deadline_at`); absent: when the campaign starts. */
  send_at?: string;
  ttl_seconds?: number;
  metadata?: Record<string, unknown>;
  audience: { audience_id?: string; recipients?: Array<RecipientInput & { data?: Record<string, unknown> }>; recipient_ids?: string[] };
  /** `if_feasible`: start at once when the plan says the deadline can be met; otherwise (and by default) stay a draft. */
  start?: 'if_feasible' | 'draft';
}

/**
 * Inline lists are for small audiences: the JSON body is capped at 256 KiB (about 2,000
 * recipients with addresses, 10,000 ids). Larger ones are uploaded to POST /v1/audiences.
 */
export const MAX_INLINE_RECIPIENTS = 10_000;

const props = notificationRequestSchema.properties;

export const campaignRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['channel', 'purpose', 'deadline_at', 'audience'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    channel: { type: 'string', enum: [...CHANNELS] },
    purpose: { type: 'string', enum: [...CAMPAIGN_PURPOSES], description: 'Bulk purposes only: codes and alerts are never campaigns.' },
    content: props.content,
    template: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      description:
        "Instead of content: rendered for each recipient, as fan-out reaches them, with the audience row's `data` in the recipient's locale (docs/campaigns.md#templates).",
      properties: {
        id: props.template.properties.id,
        version: { type: 'integer', minimum: 1, description: 'Pinned when the campaign is created; the published version when absent.' },
      },
    },
    deadline_at: {
      type: 'string',
      format: 'date-time',
      description: 'When every recipient should have been sent to (RFC 3339). The plan says whether the lane can make it.',
    },
    send_at: {
      type: 'string',
      format: 'date-time',
      description:
        'When the messages become due (RFC 3339): ahead of now, before `deadline_at`, and at most scheduling.send_at_horizon_days ahead (30 by default). ' +
        'The plan starts there; a started campaign queues its messages ready with `next_attempt_at` = `send_at`, so none is sent before it and a ' +
        'cancel before it sends nothing. Absent: due when the campaign starts.',
    },
    ttl_seconds: {
      ...props.ttl_seconds,
      description:
        "Each message's lifetime, counted from its fan-out, or from `send_at` while that is ahead. Default: the purpose's (3 days for marketing, 1 day for transactional).",
    },
    metadata: { ...props.metadata, description: 'Copied to every notification, with `campaign_id` added.' },
    audience: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 1,
      description: 'Exactly one of: an uploaded audience, recipients inline, or ids of stored recipients.',
      properties: {
        audience_id: { type: 'string', minLength: 1, maxLength: 100, description: 'An audience uploaded with POST /v1/audiences.' },
        recipients: {
          type: 'array',
          maxItems: MAX_INLINE_RECIPIENTS,
          items: {
            ...props.recipient,
            properties: {
              ...props.recipient.properties,
              data: { type: 'object', description: "This recipient's template variables (a template campaign renders with them)." },
            },
          },
        },
        recipient_ids: {
          type: 'array',
          maxItems: MAX_INLINE_RECIPIENTS,
          items: { type: 'string', minLength: 1, maxLength: 200 },
          description: 'Recipients stored with PUT /v1/recipients/{id}.',
        },
      },
    },
    start: {
      type: 'string',
      enum: ['if_feasible', 'draft'],
      description: '`if_feasible` starts at once when the deadline can be met. Default `draft`: start with POST /v1/campaigns/{id}/start.',
    },
  },
} as const;

/** Content standing in for a template's, so intake's checks of the rest (ttl, metadata) still run at creation. */
const TEMPLATE_STAND_IN: Record<Channel, MessageContent> = {
  email: { subject: 'template', text: 'template' },
  sms: { text: 'template' },
  push: { subject: 'template', text: 'template' },
};

/** A recipient with every address, so intake's message checks see only the campaign's own fields. */
const ANY_RECIPIENT: RecipientInput = { id: 'campaign-check', email: 'check@example.com', phone: '+14155550123', push_token: 'campaign-check' };

/**
 * Checks what the schema cannot; returns the deadline, the `send_at` (null: none), both epoch ms,
 * and each message's lifetime (counted from `send_at` when there is one). Throws HeraldError
 * naming the field. `horizonMs` is how far ahead `send_at` may be (scheduling.send_at_horizon_days).
 */
export function checkCampaignRequest(
  body: CampaignRequest,
  now: number,
  horizonMs: number = DEFAULT_SEND_AT_HORIZON_MS,
): { deadlineAt: number; sendAt: number | null; ttlMs: number } {
  const deadlineAt = Date.parse(body.deadline_at);
  if (Number.isNaN(deadlineAt)) throw fieldError('deadline_at', 'must be an RFC 3339 date-time');
  if (deadlineAt <= now) throw fieldError('deadline_at', 'is in the past');
  if (deadlineAt > now + MAX_TTL_SECONDS * 1000) throw fieldError('deadline_at', 'is more than 30 days ahead');
  const sendAt = body.send_at === undefined ? null : Date.parse(body.send_at);
  if (sendAt !== null) {
    if (Number.isNaN(sendAt)) throw fieldError('send_at', 'must be an RFC 3339 date-time');
    // Unlike a notification's (due now), a campaign's past send_at is refused: leaving it out already means "when started".
    if (sendAt <= now) throw fieldError('send_at', 'is not in the future; leave it out to send when the campaign starts');
    if (sendAt >= deadlineAt)
      throw new HeraldError('send_at_after_deadline', 'send_at is at or after deadline_at: nothing could be sent before the deadline', [
        { field: 'send_at', message: 'must be before deadline_at' },
      ]);
  }
  if (body.template !== undefined && body.content !== undefined) throw fieldError('template', 'and content are exclusive: give one');
  // Intake's checks of the message (content, subject for email, ttl, metadata size), with the
  // campaign's own field names; a template's content is checked per recipient as it renders
  // (CampaignService.create renders the first recipient's to refuse a broken template at once).
  const { expiresAt, dueAt } = checkNotificationRequest(
    {
      recipient: ANY_RECIPIENT,
      purpose: body.purpose,
      channels: [body.channel],
      ...(body.content !== undefined ? { content: body.content } : {}),
      ...(body.template !== undefined ? { content: TEMPLATE_STAND_IN[body.channel] } : {}),
      ...(body.ttl_seconds !== undefined ? { ttl_seconds: body.ttl_seconds } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      // The horizon (send_at_beyond_horizon) is intake's rule, with the same field name.
      ...(body.send_at !== undefined ? { send_at: body.send_at } : {}),
    },
    now,
    horizonMs,
  );
  return { deadlineAt, sendAt, ttlMs: expiresAt - dueAt };
}
