/**
 * The SMSGate app's own webhooks, Herald's side (docs/phone-gateway.md "Phone-side webhooks"):
 * what `GET /settings` and `GET /webhooks` hand a device (its signing key, its ping interval,
 * one endpoint per event on a path only it knows), and what a call to that endpoint does once
 * verified: an incoming SMS is stored once with its keyword's effect and a `message.received`
 * event (store.inbound), a state event is one more phone report beside `PATCH /message` (the
 * same records, folded on the same forward-only lattice by the report applier), a ping is a
 * health sample. A first HELP or STOP is answered with one SMS through the same device
 * (keyword-reply.ts), the account's `keyword_replies` text or the default; a duplicate never is.
 * Each device's key and path token are HMACs of its id under one server secret,
 * so nothing per device is stored and a database copy without that secret cannot forge them.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import {
  keywordReplyText,
  parsePhoneWebhook,
  PHONE_WEBHOOK_EVENTS,
  PHONE_WEBHOOK_WINDOW_SECONDS,
  readPingHealth,
  verifyPhoneWebhook,
  type PhoneReceived,
  type PhoneStateEvent,
} from '../domain/index.js';
import { isDeliveryReportFailure } from '../providers/android-gateway/classify.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import type { DeviceRecord, Store } from '../store/store.js';
import type { MobileAnswer } from './device-service.js';
import { InboundRecorder } from './inbound-recorder.js';
import { keywordReplyNotification } from './keyword-reply.js';
import { ERROR_TOKEN } from './mobile-requests.js';

/** How often the app is asked to ping (`ping.interval_seconds`): a missed phone shows within 3 × this. */
export const PHONE_PING_INTERVAL_SECONDS = 300;
const PHONE_WEBHOOK_SECRET = 'phone-webhooks';

export interface PhoneWebhooksOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The device API's base path (`devices.base_path`); the endpoints live under it. */
  basePath: string;
  /** New phone reports were recorded: the report applier may run now. */
  onReports?: () => void;
  windowSeconds?: number;
  /** Records incoming SMS (shared with the providers' inbound webhooks); default: one of its own. */
  recorder?: InboundRecorder;
  /** The configured accounts: their `keyword_replies` (absent: the default texts). */
  accounts?: readonly ProviderAccountConfig[];
  /** Wakes this process's claim loops of an account (an automatic reply is due now). */
  wake?: (providerAccount: string) => void;
}

/** The phone-side webhooks of every device of this process's gateway. */
export class PhoneWebhooks {
  private secret: Promise<string> | null = null;
  private readonly recorder: InboundRecorder;

  constructor(private readonly opts: PhoneWebhooksOptions) {
    this.recorder = opts.recorder ?? new InboundRecorder(opts);
  }

  /** `GET /settings` for a device: its signing key (the app imports it over its own) and the ping interval. */
  async settingsFor(device: DeviceRecord): Promise<Record<string, unknown>> {
    return { webhooks: { signing_key: await this.derive('key', device.id) }, ping: { interval_seconds: PHONE_PING_INTERVAL_SECONDS } };
  }

  /** `GET /webhooks` for a device: one endpoint per event, `origin` + base path + an unguessable path. */
  async webhooksFor(device: DeviceRecord, origin: string): Promise<Array<{ id: string; url: string; event: string }>> {
    const url = `${origin}${this.opts.basePath}/webhooks/${encodeURIComponent(device.id)}/${await this.derive('path', device.id)}`;
    return PHONE_WEBHOOK_EVENTS.map((event) => ({ id: `herald-${event.replace(':', '-')}`, url, event }));
  }

  /**
   * A call to a device's endpoint. 404 for an unknown device or a wrong path token (nothing says
   * which), 401 for a signature or timestamp that does not verify, 400 for a body Herald cannot
   * read; 200 for a duplicate as for a new event (the app stops retrying), after one commit.
   */
  async receive(deviceId: string, token: string, headers: { timestamp?: string; signature?: string }, raw: Buffer): Promise<MobileAnswer> {
    const { store, clock } = this.opts;
    const device = await store.devices.getDevice(deviceId);
    const expected = device ? Buffer.from(await this.derive('path', device.id)) : null;
    const given = Buffer.from(token);
    if (!device || !expected || expected.length !== given.length || !timingSafeEqual(expected, given)) return { status: 404, body: { message: 'Not Found' } };
    const now = clock.now();
    const verified = verifyPhoneWebhook({
      body: raw,
      timestamp: headers.timestamp,
      signature: headers.signature,
      keys: [await this.derive('key', device.id)],
      nowMs: now,
      windowSeconds: this.opts.windowSeconds ?? PHONE_WEBHOOK_WINDOW_SECONDS,
    });
    if (!verified.ok) {
      this.opts.logger.warn({ device: device.id, reason: verified.reason }, 'phone webhook refused');
      return { status: 401, body: { message: 'Unauthorized' } };
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      return { status: 400, body: { message: 'the body is not valid JSON' } };
    }
    const body = parsePhoneWebhook(json);
    if (!body) return { status: 400, body: { message: 'not an event Herald listed, or a field it needs is missing' } };
    if (body.deviceId !== device.id) return { status: 400, body: { message: 'deviceId is not this endpoint device' } };
    const event = { source: `device:${device.id}`, eventId: body.id };
    switch (body.event) {
      case 'received':
        await this.received(device, body.received, event, now);
        break;
      case 'state':
        await this.state(device, body.report, event, now);
        break;
      case 'ping': {
        const sample = readPingHealth(body.health);
        if (sample) await store.inbound.recordHealth({ deviceId: device.id, at: now, ...sample }, event);
        break;
      }
    }
    return { status: 200, body: {} };
  }

  /** The keyed hash of an SMS number that masked destinations keep (InboundRecorder.senderHash). */
  senderHash(number: string): Promise<string> {
    return this.recorder.senderHash(number);
  }

  private async received(device: DeviceRecord, m: PhoneReceived, event: { source: string; eventId: string }, now: number): Promise<void> {
    const { tenantId, providerAccount } = device;
    const incoming = { tenantId, providerAccount, source: 'phone', externalId: m.messageId, deviceId: device.id, simNumber: m.simNumber } as const;
    const rec = await this.recorder.record({ ...incoming, kind: m.kind, sender: m.sender, content: m.content, receivedAt: m.receivedAtMs }, event, now);
    // Only the first recording answers: the app's retry and its duplicates under new event ids get nothing.
    if (!rec.result.recorded || rec.keyword === null) return;
    const replies = this.opts.accounts?.find((a) => a.id === providerAccount)?.keyword_replies ?? null;
    const text = keywordReplyText(rec.keyword, replies);
    if (text === null) return;
    const reply = keywordReplyNotification({
      tenantId,
      providerAccount,
      deviceId: device.id,
      simNumber: m.simNumber,
      inboundId: rec.id,
      keyword: rec.keyword,
      sender: m.sender,
      senderHash: await this.recorder.senderHash(m.sender),
      text,
      now,
    });
    try {
      await this.opts.store.createNotification(reply);
    } catch (err) {
      // Logged, and the webhook still answered 200: the message and its STOP are committed, and
      // the app's retry would be a duplicate, which answers nothing. Ids only, never the number.
      this.opts.logger.warn({ err, inbound: rec.id, device: device.id, providerAccount }, 'cannot queue the automatic reply to an incoming keyword');
      return;
    }
    this.opts.wake?.(providerAccount);
  }

  private async state(device: DeviceRecord, e: PhoneStateEvent, event: { source: string; eventId: string }, now: number): Promise<void> {
    if (!(await this.opts.store.inbound.takeEvent(event, now))) return;
    const error = e.reason === null ? null : (ERROR_TOKEN.exec(e.reason)?.[0] ?? 'other');
    const sent = e.state !== 'Failed' || isDeliveryReportFailure(e.reason);
    const r = await this.opts.store.devices.recordReports({ deviceId: device.id, now, reports: [{ messageId: e.messageId, state: e.state, sent, error }] });
    if (r.recorded > 0) this.opts.onReports?.();
  }

  /** A device's signing key or path token: HMAC of its id under the phone-webhooks server secret. */
  private async derive(what: 'key' | 'path', deviceId: string): Promise<string> {
    this.secret ??= this.opts.store.preferences.serverSecret(PHONE_WEBHOOK_SECRET, () => randomBytes(32).toString('base64url'), this.opts.clock.now());
    const mac = createHmac('sha256', await this.secret)
      .update(`${what}:${deviceId}`)
      .digest('base64url');
    return mac.slice(0, 32);
  }
}
