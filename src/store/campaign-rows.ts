/** Maps campaign, audience and recipient rows (either driver: times as numbers or numeric strings, booleans as 0/1 or true/false) to the contract's views. */
import type { Channel, DeliveryState, DownstreamStatus, TerminalReason } from '../domain/index.js';
import type { CampaignStatus } from '../domain/campaign-status.js';
import type {
  AudienceRow,
  AudienceSource,
  AudienceView,
  CampaignDeliveryCount,
  CampaignGroupCount,
  CampaignRecord,
  CampaignRefusal,
  RecipientProfile,
} from './campaign-store.js';
import type { SealBinding } from './content-cipher.js';
import { numOrNull, strOrNull, type Row, str, json, jsonOrNull } from './rows.js';
import type { RecipientInput } from './core-store.js';

/** A `recipients` row. */
export function toRecipientProfile(r: Row): RecipientProfile {
  return {
    id: String(r.id),
    email: strOrNull(r.email),
    phone: strOrNull(r.phone),
    push_token: strOrNull(r.push_token),
    locale: strOrNull(r.locale),
    time_zone: strOrNull(r.time_zone),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

/** An `audiences` row. */
export function toAudienceView(r: Row): AudienceView {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    status: r.status as AudienceView['status'],
    source: r.source as AudienceSource,
    size: Number(r.size),
    duplicates: Number(r.duplicates),
    withAddress: { email: Number(r.with_email), sms: Number(r.with_phone), push: Number(r.with_push_token) },
    createdAt: Number(r.created_at),
  };
}

/**
 * An `audience_recipients` row; absent addresses are left out of the recipient, as a request
 * would leave them out. `data` is the row's opened data_json (the driver opens it), if any.
 */
export function toAudienceRow(r: Row, data: Record<string, unknown> | null): AudienceRow {
  const recipient: RecipientInput = { id: String(r.recipient_id) };
  if (r.email !== null) recipient.email = str(r.email);
  if (r.phone !== null) recipient.phone = str(r.phone);
  if (r.push_token !== null) recipient.push_token = str(r.push_token);
  if (r.locale !== null) recipient.locale = str(r.locale);
  if (r.time_zone != null) recipient.time_zone = str(r.time_zone);
  return data === null
    ? { position: Number(r.position), line: Number(r.line), recipient }
    : { position: Number(r.position), line: Number(r.line), recipient, data };
}

/** A `campaign_refusals` row. */
export function toCampaignRefusal(r: Row): CampaignRefusal {
  return {
    position: Number(r.position),
    line: Number(r.line),
    recipientId: String(r.recipient_id),
    code: String(r.code),
    reason: String(r.reason),
    locale: strOrNull(r.locale),
    createdAt: Number(r.created_at),
  };
}

/** The binding (content-cipher.ts) of an audience row's sealed data_json. */
export function audienceDataBinding(audienceId: string, position: number): SealBinding {
  return { table: 'audience_recipients', column: 'data_json', rowId: `${audienceId}/${position}` };
}

/** A `campaigns` row. */
export function toCampaignRecord(r: Row): CampaignRecord {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    name: strOrNull(r.name),
    status: r.status as CampaignStatus,
    channel: r.channel as Channel,
    purpose: r.purpose as CampaignRecord['purpose'],
    providerAccount: String(r.provider_account),
    lane: String(r.lane),
    content: json(r.content_json),
    template: r.template_id === null || r.template_id === undefined ? null : { id: str(r.template_id), version: Number(r.template_version) },
    metadata: jsonOrNull(r.metadata_json),
    ttlMs: Number(r.ttl_ms),
    audienceId: String(r.audience_id),
    audienceSize: Number(r.audience_size),
    deadlineAt: Number(r.deadline_at),
    sendAt: numOrNull(r.send_at),
    plan: json(r.plan_json),
    fannedOutPosition: Number(r.fanned_out_position),
    fannedOut: Number(r.fanned_out),
    skipped: Number(r.skipped),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    startedAt: numOrNull(r.started_at),
    pausedAt: numOrNull(r.paused_at),
    finishedAt: numOrNull(r.finished_at),
  };
}

/** A `campaign_delivery_counts` row. */
export function toCampaignDeliveryCount(r: Row): CampaignDeliveryCount {
  return {
    state: r.state as DeliveryState,
    terminalReason: (r.terminal_reason ?? null) as TerminalReason | null,
    downstreamStatus: (r.downstream_status ?? null) as DownstreamStatus | null,
    held: r.held === true || Number(r.held) === 1,
    count: Number(r.n),
  };
}

/** A `campaign_delivery_counts_many` row. */
export function toCampaignGroupCount(r: Row): CampaignGroupCount {
  return { campaignId: String(r.campaign_id), ...toCampaignDeliveryCount(r) };
}

/** The column of `audience_recipients` (and `recipients`) holding a channel's address. */
export const ADDRESS_COLUMN: Record<Channel, 'email' | 'phone' | 'push_token'> = { email: 'email', sms: 'phone', push: 'push_token' };
