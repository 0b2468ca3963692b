/**
 * One incoming message recorded, whichever webhook brought it (a phone's `sms:received`, a
 * provider's inbound webhook): its keyword recognised, the sender hashed, and in one
 * transaction (store.inbound.recordInbound) the message, its keyword's effect (STOP suppresses
 * the number, START lifts it) and its `message.received` outbox event. Both paths call this, so
 * a STOP means the same thing whether it came through a phone or through Twilio.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { ulidMaker } from '../ids.js';
import { compileKeywords, recognizeKeyword, type KeywordAction, type KeywordSet } from '../domain/index.js';
import type { InboundEventKey, NewInboundMessage, RecordInboundResult } from '../store/inbound-store.js';
import { DEFAULT_TENANT_ID, type Store } from '../store/store.js';

/** The reply link looks this far back among the account's newest deliveries. */
export const LINK_SCAN = 5_000;
/** The server secret the keyed sender hash is made with: the one retention's masked destinations keep (delivery/retention-service.ts). */
const DESTINATION_HASH_SECRET = 'destination-hash';

const ulid = ulidMaker();

/** An incoming message as a webhook reported it, before Herald gives it an id; `receivedAt` is the phone's or provider's time, when it gave one. */
export type IncomingMessage = Omit<NewInboundMessage, 'id' | 'senderHash' | 'keyword' | 'receivedAt' | 'now'> & { receivedAt: number | null };

export interface IncomingRecorded {
  id: string;
  keyword: KeywordAction | null;
  result: RecordInboundResult;
}

/** Records incoming messages with their keyword effects (one instance per process). */
export class InboundRecorder {
  private hashSecret: Promise<string> | null = null;
  private readonly keywords: KeywordSet;

  constructor(private readonly opts: { store: Store; clock: Clock; logger: Pick<Logger, 'info'> }) {
    const compiled = compileKeywords();
    if (!compiled.ok) throw new Error(compiled.error);
    this.keywords = compiled.set;
  }

  /** The keyed hash of an SMS number that masked destinations keep: HMAC-SHA256(secret, "sms:" + number), hex. */
  async senderHash(number: string): Promise<string> {
    this.hashSecret ??= this.opts.store.preferences.serverSecret(DESTINATION_HASH_SECRET, () => randomBytes(32).toString('base64url'), this.opts.clock.now());
    return createHmac('sha256', await this.hashSecret)
      .update(`sms:${number}`)
      .digest('hex');
  }

  /**
   * The tenant a provider account's incoming message belongs to: the account's only tenant; the
   * default tenant when it is assigned to nobody; when several tenants share it, the one whose
   * SMS to this number on this account is the newest (the conversation the reply answers), else
   * the default tenant.
   */
  async tenantFor(providerAccount: string, sender: string): Promise<string> {
    const { store } = this.opts;
    const tenants = (await store.tenants.listAssignments()).filter((a) => a.providerAccount === providerAccount).map((a) => a.tenantId);
    if (tenants.length === 0) return DEFAULT_TENANT_ID;
    if (tenants.length === 1) return tenants[0]!;
    return (await store.inbound.newestSenderTenant(tenants, providerAccount, sender, await this.senderHash(sender), LINK_SCAN)) ?? DEFAULT_TENANT_ID;
  }

  /** Records `m` once per account and external id (and once per webhook event), with its keyword's effect and event. */
  async record(m: IncomingMessage, event: InboundEventKey | null, now: number): Promise<IncomingRecorded> {
    const keyword = m.kind === 'sms' && m.content !== null ? recognizeKeyword(m.content, this.keywords) : null;
    const id = `inb_${ulid(now)}`;
    const receivedAt = m.receivedAt ?? now;
    const result = await this.opts.store.inbound.recordInbound(
      { ...m, id, senderHash: await this.senderHash(m.sender), keyword, receivedAt, now },
      event,
      {
        suppress: keyword === 'stop',
        lift: keyword === 'start',
        event: {
          id,
          provider_account: m.providerAccount,
          device_id: m.deviceId,
          sim_number: m.simNumber,
          kind: m.kind,
          from: m.sender,
          text: m.content,
          keyword,
          received_at: new Date(receivedAt).toISOString(),
        },
      },
      LINK_SCAN,
    );
    // Ids only: never the number or the text.
    this.opts.logger.info(
      { inbound: id, source: m.source, providerAccount: m.providerAccount, device: m.deviceId, keyword, recorded: result.recorded },
      'incoming message',
    );
    return { id, keyword, result };
  }
}
