/**
 * `store.inbound`, written once for both drivers (see ../inbound-store.ts): incoming messages
 * with their keyword effects and outbox event in one transaction, webhook event ids, keyword
 * suppressions and the phones' health reports. Nothing here is dialect-specific.
 */
import { openContent } from '../content-cipher.js';
import type {
  DeviceHealthRecord,
  InboundEffects,
  InboundEventKey,
  InboundFilter,
  InboundMessageRecord,
  InboundSourceName,
  InboundStore,
  KeywordSuppressionRecord,
  NewInboundMessage,
  RecordInboundResult,
} from '../inbound-store.js';
import type { InboundKind, KeywordAction } from '../../domain/index.js';
import { num, numOrNull, strOrNull, type Row } from '../rows.js';
import { type Executor, count, list, one } from '../sql-executor.js';

/** What is sealed in `content_sealed`: the sender's number and the text, together. */
interface SealedInbound {
  from: string;
  text: string | null;
}

const binding = (id: string) => ({ table: 'inbound_messages', column: 'content_sealed', rowId: id });

const bool = (v: unknown): boolean | null => (v === null || v === undefined ? null : v === true || v === 1 || v === '1');

function toHealth(r: Row): DeviceHealthRecord {
  return {
    deviceId: String(r.device_id),
    at: num(r.at),
    batteryPercent: numOrNull(r.battery_percent),
    charging: bool(r.charging),
    internet: bool(r.internet),
    transports: typeof r.transports === 'string' ? (JSON.parse(r.transports) as string[]) : null,
    cellular: strOrNull(r.cellular),
    signal: numOrNull(r.signal),
    failedLastHour: numOrNull(r.failed_last_hour),
    appVersion: strOrNull(r.app_version),
  };
}

function toSuppression(r: Row): KeywordSuppressionRecord {
  return {
    tenantId: String(r.tenant_id),
    channel: 'sms',
    destination: String(r.destination),
    keyword: String(r.keyword),
    providerAccount: String(r.provider_account),
    inboundId: String(r.inbound_id),
    createdAt: num(r.created_at),
  };
}

/** Incoming messages, keyword suppressions and the phones' health. */
export class InboundPart implements InboundStore {
  constructor(protected readonly x: Executor) {}

  async recordInbound(m: NewInboundMessage, event: InboundEventKey | null, effects: InboundEffects, linkScan: number): Promise<RecordInboundResult> {
    const sealed = this.x.sealContent({ from: m.sender, text: m.content } satisfies SealedInbound, binding(m.id));
    return this.x.transaction(function* () {
      if (event && (yield* count('inbound_event_take', { source: event.source, event_id: event.eventId, now: m.now })) === 0) {
        return { recorded: false, duplicate: 'event' } as const;
      }
      const last = yield* one('inbound_last_notification', {
        tenant_id: m.tenantId,
        provider_account: m.providerAccount,
        destination: m.sender,
        destination_hash: m.senderHash,
        scan: linkScan,
      });
      const replyTo = last ? String(last.notification_id) : null;
      const inserted = yield* count('inbound_insert', {
        id: m.id,
        tenant_id: m.tenantId,
        provider_account: m.providerAccount,
        source: m.source,
        external_id: m.externalId,
        device_id: m.deviceId,
        sim_number: m.simNumber,
        kind: m.kind,
        sender_hash: m.senderHash,
        content_sealed: sealed,
        keyword: m.keyword,
        reply_to_notification_id: replyTo,
        received_at: m.receivedAt,
        now: m.now,
      });
      if (inserted === 0) return { recorded: false, duplicate: 'message' } as const;
      if (effects.suppress) {
        yield* count('keyword_suppression_insert', {
          tenant_id: m.tenantId,
          destination: m.sender,
          keyword: m.keyword ?? 'stop',
          provider_account: m.providerAccount,
          inbound_id: m.id,
          now: m.now,
        });
      }
      if (effects.lift) yield* count('keyword_suppression_delete', { tenant_id: m.tenantId, destination: m.sender });
      if (effects.event) {
        // The outbox orders events per notification; an incoming message is its own sequence.
        yield* count('outbox_insert', {
          tenant_id: m.tenantId,
          notification_id: m.id,
          delivery_id: null,
          event_type: 'message.received',
          payload_json: JSON.stringify({ ...effects.event, reply_to_notification_id: replyTo }),
          now: m.now,
        });
      }
      return { recorded: true, replyToNotificationId: replyTo } as const;
    });
  }

  async takeEvent(event: InboundEventKey, now: number): Promise<boolean> {
    return (await this.x.count('inbound_event_take', { source: event.source, event_id: event.eventId, now })) > 0;
  }

  async newestSenderTenant(
    tenantIds: readonly string[],
    providerAccount: string,
    destination: string,
    destinationHash: string,
    scan: number,
  ): Promise<string | null> {
    // One bounded indexed range per tenant (deliveries_list_account leads with tenant_id); an account is shared by a few.
    let best: { id: string; tenantId: string } | null = null;
    for (const tenantId of tenantIds) {
      const r = await this.x.one('inbound_last_notification', {
        tenant_id: tenantId,
        provider_account: providerAccount,
        destination,
        destination_hash: destinationHash,
        scan,
      });
      if (r && (best === null || String(r.id) > best.id)) best = { id: String(r.id), tenantId };
    }
    return best?.tenantId ?? null;
  }

  async recordHealth(s: DeviceHealthRecord, event: InboundEventKey | null): Promise<boolean> {
    const params = {
      device_id: s.deviceId,
      at: s.at,
      battery_percent: s.batteryPercent,
      charging: s.charging,
      internet: s.internet,
      transports: s.transports === null ? null : JSON.stringify(s.transports),
      cellular: s.cellular,
      signal: s.signal,
      failed_last_hour: s.failedLastHour,
      app_version: s.appVersion,
    };
    return this.x.transaction(function* () {
      if (event && (yield* count('inbound_event_take', { source: event.source, event_id: event.eventId, now: s.at })) === 0) return false;
      return (yield* count('device_health_insert', params)) > 0;
    });
  }

  async getInbound(tenantId: string, id: string): Promise<InboundMessageRecord | null> {
    const r = await this.x.one('inbound_get', { tenant_id: tenantId, id });
    return r ? this.toInbound(r) : null;
  }

  async listInbound(f: InboundFilter): Promise<InboundMessageRecord[]> {
    const rows = await this.x.all('inbound_list', {
      tenant_id: f.tenantId,
      provider_account: f.providerAccount ?? null,
      device_id: f.deviceId ?? null,
      sender_hash: f.senderHash ?? null,
      since: f.since ?? null,
      until: f.until ?? null,
      after_at: f.after?.receivedAt ?? null,
      after_id: f.after?.id ?? null,
      limit: f.limit,
    });
    return rows.map((r) => this.toInbound(r));
  }

  async keywordSuppressionsOf(tenantId: string, destinations: readonly string[]): Promise<KeywordSuppressionRecord[]> {
    if (destinations.length === 0) return [];
    return (await this.x.all('keyword_suppressions_of', { tenant_id: tenantId, destinations: list(destinations) })).map(toSuppression);
  }

  async listKeywordSuppressions(tenantId: string, limit: number): Promise<KeywordSuppressionRecord[]> {
    return (await this.x.all('keyword_suppressions_list', { tenant_id: tenantId, limit })).map(toSuppression);
  }

  async latestHealth(deviceIds: readonly string[]): Promise<DeviceHealthRecord[]> {
    if (deviceIds.length === 0) return [];
    return (await this.x.all('device_health_latest', { device_ids: list(deviceIds) })).map(toHealth);
  }

  async healthHistory(deviceId: string, since: number): Promise<DeviceHealthRecord[]> {
    return (await this.x.all('device_health_history', { device_id: deviceId, since })).map(toHealth);
  }

  async inboundContentDue(before: number, limit: number): Promise<string[]> {
    return (await this.x.all('inbound_content_due', { before, limit })).map((r) => String(r.id));
  }

  async eraseInboundContent(ids: readonly string[], now: number): Promise<number> {
    if (ids.length === 0) return 0;
    return this.x.count('inbound_erase_content', { ids: list(ids), now });
  }

  async prune(eventsBefore: number, healthBefore: number, limit: number): Promise<number> {
    const events = await this.x.count('inbound_events_prune', { before: eventsBefore, limit });
    const health = await this.x.count('device_health_prune', { before: healthBefore, limit });
    return events + health;
  }

  private toInbound(r: Row): InboundMessageRecord {
    const id = String(r.id);
    const sealed =
      r.content_sealed === null || r.content_sealed === undefined ? null : openContent<SealedInbound>(this.x.cipher, r.content_sealed, binding(id));
    return {
      id,
      tenantId: String(r.tenant_id),
      providerAccount: String(r.provider_account),
      source: String(r.source) as InboundSourceName,
      externalId: String(r.external_id),
      deviceId: strOrNull(r.device_id),
      simNumber: numOrNull(r.sim_number),
      kind: String(r.kind) as InboundKind,
      senderHash: String(r.sender_hash),
      sender: sealed?.from ?? null,
      content: sealed?.text ?? null,
      contentErasedAt: numOrNull(r.content_erased_at),
      keyword: strOrNull(r.keyword) as KeywordAction | null,
      replyToNotificationId: strOrNull(r.reply_to_notification_id),
      receivedAt: num(r.received_at),
      recordedAt: num(r.recorded_at),
    };
  }
}
