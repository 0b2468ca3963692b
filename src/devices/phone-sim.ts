/**
 * A phone simulator that speaks the SMSGate app's protocol over HTTP (SSE included), for trying
 * the gateway without a phone (`herald phone-sim`) and for tests. It does what the app does
 * (capcom6/android-sms-gateway at 0cdc5d8, `modules/gateway/GatewayService.kt`,
 * `workers/SendStateWorker.kt`, `helpers/SSEManager.kt`):
 *
 * - registers with the private token (`POST /device`), then calls with its device token;
 * - keeps an SSE connection to `/events`, pulls on every open and on each `MessageEnqueued`,
 *   and reconnects when the stream ends;
 * - de-duplicates by message id: an id it already holds is never sent again, its stored state is
 *   re-reported instead;
 * - "sends" (records the send; no radio) and reports each state change (`PATCH /message`) with
 *   the message's whole state history, retrying a report that could not be delivered;
 * - goes offline (no calls, SSE closed, reports held back) and comes back on command.
 *
 * What each message does is scripted per message (`script`): delivered, sent without a delivery
 * report, failed before sending with an app error text, held, or "reports lost" (sent, but no
 * report ever reaches Herald: the case a heartbeat sweep's re-offer settles). Nothing here
 * prints a phone number or a text.
 */

import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { LOW_BATTERY_PERCENT, signPhoneWebhook } from '../domain/index.js';

/** What the simulated phone does with the next message it has not seen. */
export type MessageScript = { kind: 'deliver' } | { kind: 'sent' } | { kind: 'fail'; error: string } | { kind: 'hold' } | { kind: 'lose_reports' };

export type SimState = 'Pending' | 'Processed' | 'Sent' | 'Delivered' | 'Failed';

interface StoredMessage {
  id: string;
  phoneNumbers: string[];
  state: SimState;
  states: Partial<Record<SimState, string>>;
  error: string | null;
  loseReports: boolean;
}

export interface SimSend {
  messageId: string;
  /** Characters of the text (the text itself is not kept). */
  length: number;
  simNumber: number | null;
  /** The offer asked for a delivery report (the app's default); without one the phone stops at Sent. */
  withDeliveryReport: boolean;
  at: number;
}

export interface PhoneSimOptions {
  /** The app's API URL: Herald's URL and the device base path, e.g. http://127.0.0.1:8080/mobile/v1. */
  server: string;
  /** The account's private token (Settings → Cloud Server → Private Token). */
  privateToken?: string;
  /** Or an existing login, to join its account. */
  login?: { login: string; password: string };
  /** Or a one-time code from GET /user/code. */
  code?: string;
  name?: string;
  simCards?: Array<{ slotIndex: number; simNumber: number; phoneNumber?: string | null; carrierName?: string | null }>;
  order?: 'lifo' | 'fifo';
  /** Wait between handing the SMS to "Android" (Processed) and Sent. Default 0. */
  sendDelayMs?: number;
  /** Wait between Sent and Delivered. Default 0. */
  deliverDelayMs?: number;
  /** After an SSE stream ends, reconnect after this. The app waits 5 s, 30 s, then 60 s. Default 5000. */
  reconnectMs?: number;
  /** What unscripted messages do. Default deliver. */
  defaultScript?: MessageScript;
  /** The phone's clock, for its state history. Default Date.now. */
  now?: () => number;
  /** One line per event (registration, pulls, sends, reports): never a number or a text. */
  log?: (line: string) => void;
  /** Sent as User-Agent, as the app does (`me.capcom.smsgateway/<version>`). */
  appVersion?: string;
  /**
   * The battery its pings report: the level it starts at, and how many points each ping takes
   * off (unless charging) or adds (while charging). Default 80 %, 1 point a ping.
   */
  battery?: { percent?: number; drainPerPing?: number; chargePerPing?: number; charging?: boolean };
}

export interface Registration {
  id: string;
  token: string;
  login: string;
  password?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class PhoneSim {
  private token: string | null = null;
  registration: Registration | null = null;
  private online = false;
  private stream: AbortController | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly scripts: MessageScript[] = [];
  private readonly stored = new Map<string, StoredMessage>();
  /** Reports that could not be delivered, oldest first, retried when the phone is back (as WorkManager retries). */
  private readonly pendingReports: string[] = [];
  private pulling: Promise<void> | null = null;
  private pullAgain = false;
  private readonly work = new Set<Promise<unknown>>();
  /** Every SMS "sent", in order. */
  readonly sends: SimSend[] = [];
  /** Message ids as each pull returned them. */
  readonly pulls: string[][] = [];
  /** SSE events received, by type. */
  readonly events: string[] = [];
  /** SSE connections opened. */
  connections = 0;
  /** The battery level the next ping reports, and whether the phone is on its charger. */
  batteryPercent: number;
  charging: boolean;
  private hooks: { key: string; url: string } | null = null;
  private pings = 0;

  constructor(private readonly opts: PhoneSimOptions) {
    this.batteryPercent = opts.battery?.percent ?? 80;
    this.charging = opts.battery?.charging ?? false;
  }

  private get base(): string {
    return this.opts.server.replace(/\/+$/, '');
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private log(line: string): void {
    this.opts.log?.(line);
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { 'user-agent': `me.capcom.smsgateway/${this.opts.appVersion ?? '1.40.0-sim'}`, ...extra };
  }

  /** Scripts the next unseen messages, in order. */
  script(...next: MessageScript[]): void {
    this.scripts.push(...next);
  }

  /** The phone's record of a message (what it would re-report), or undefined. */
  message(id: string): Readonly<StoredMessage> | undefined {
    return this.stored.get(id);
  }

  /** How many times the phone sent a message id (a duplicate SMS would make it 2). */
  sendCount(id: string): number {
    return this.sends.filter((s) => s.messageId === id).length;
  }

  /** Registers with the configured credentials; keeps the device token. */
  async register(): Promise<Registration> {
    const auth = this.opts.login
      ? `Basic ${Buffer.from(`${this.opts.login.login}:${this.opts.login.password}`).toString('base64')}`
      : this.opts.code
        ? `Code ${this.opts.code}`
        : `Bearer ${this.opts.privateToken ?? ''}`;
    const res = await fetch(`${this.base}/device`, {
      method: 'POST',
      headers: this.headers({ authorization: auth, 'content-type': 'application/json' }),
      body: JSON.stringify({
        name: this.opts.name ?? 'Herald/phone-sim',
        pushToken: null,
        simCards: (this.opts.simCards ?? [{ slotIndex: 0, simNumber: 1, phoneNumber: '********0000', carrierName: '**im' }]).map((s) => ({
          iccid: null,
          phoneNumber: null,
          carrierName: null,
          ...s,
        })),
      }),
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.status !== 201) throw new Error(`registration refused: HTTP ${res.status} ${typeof body.message === 'string' ? body.message : ''}`);
    this.registration = body as unknown as Registration;
    this.token = this.registration.token;
    this.log(`registered as device ${this.registration.id} (login ${this.registration.login})`);
    return this.registration;
  }

  /** Plugs the phone in (the level rises with each ping) or unplugs it (it drains again). */
  setCharging(on: boolean): void {
    this.charging = on;
  }

  /**
   * Sends one `system:ping` as the app does (its health checks: battery level and charging
   * flags, Internet), signed with the key from `GET /settings` to the endpoint from
   * `GET /webhooks`, posted to that path on the server it talks to; then the battery drains (or
   * charges) for the next one. Returns the level it reported and Herald's HTTP status.
   */
  async ping(): Promise<{ status: number; batteryPercent: number }> {
    if (!this.token) await this.register();
    this.hooks ??= await this.fetchHooks();
    const reported = this.batteryPercent;
    const body = JSON.stringify({
      id: `ping-${this.registration!.id}-${++this.pings}`,
      webhookId: 'herald-system-ping',
      event: 'system:ping',
      deviceId: this.registration!.id,
      payload: {
        health: {
          status: reported < LOW_BATTERY_PERCENT && !this.charging ? 'warn' : 'pass',
          version: this.opts.appVersion ?? '1.40.0-sim',
          releaseId: 1,
          checks: {
            'battery:level': { status: 'pass', observedValue: reported, observedUnit: 'percent', description: 'Battery level in percent' },
            // The app's flags: 1 charging, 2 on AC (BatteryMonitor.kt).
            'battery:charging': { status: 'pass', observedValue: this.charging ? 3 : 0, observedUnit: 'flags', description: 'Is the phone charging?' },
            'connection:status': { status: 'pass', observedValue: 1, observedUnit: 'boolean', description: 'Internet connection status' },
          },
        },
      },
    });
    const timestamp = String(Math.floor(this.now() / 1000));
    const res = await fetch(this.hooks.url, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json', 'x-timestamp': timestamp, 'x-signature': signPhoneWebhook(this.hooks.key, body, timestamp) }),
      body,
    });
    await res.arrayBuffer();
    const b = this.opts.battery ?? {};
    this.batteryPercent = this.charging ? Math.min(100, reported + (b.chargePerPing ?? 1)) : Math.max(0, reported - (b.drainPerPing ?? 1));
    this.log(`ping: battery ${reported} %${this.charging ? ', charging' : ''} (HTTP ${res.status})`);
    return { status: res.status, batteryPercent: reported };
  }

  /** The signing key and the `system:ping` endpoint Herald lists for this device. */
  private async fetchHooks(): Promise<{ key: string; url: string }> {
    const auth = this.headers({ authorization: `Bearer ${this.token}` });
    const settings = (await (await fetch(`${this.base}/settings`, { headers: auth })).json()) as { webhooks?: { signing_key?: string } };
    const hooks = (await (await fetch(`${this.base}/webhooks`, { headers: auth })).json()) as Array<{ url: string; event: string }>;
    const ping = Array.isArray(hooks) ? hooks.find((w) => w.event === 'system:ping') : undefined;
    const key = settings.webhooks?.signing_key;
    if (!ping || !key) throw new Error('Herald listed no system:ping webhook or signing key for this device');
    // The listed URL is on Herald's public URL; the phone posts to that path on the server it talks to.
    return { key, url: `${new URL(this.base).origin}${new URL(ping.url).pathname}` };
  }

  /** Opens the SSE connection (and pulls, as the app does on every open). */
  async start(): Promise<void> {
    if (!this.token) await this.register();
    this.online = true;
    await this.connect();
  }

  /** The phone goes quiet: the SSE stream closes, no call is made until `comeBack()`. */
  async goOffline(): Promise<void> {
    this.online = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.stream?.abort();
    this.stream = null;
    await this.idle();
    this.log('offline');
  }

  /** The phone is back: reconnects (pulling on open) and delivers the reports it held back. */
  async comeBack(): Promise<void> {
    this.online = true;
    this.log('back online');
    await this.flushReports();
    await this.connect();
  }

  /** Resolves when nothing the phone started (pulls, sends, reports) is still running. */
  async idle(): Promise<void> {
    while (this.work.size > 0 || this.pulling) await Promise.allSettled([...this.work, this.pulling]);
  }

  async close(): Promise<void> {
    await this.goOffline();
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.work.add(p);
    // Silent on purpose: `p` itself is returned, and its caller sees the rejection; this derived
    // promise only forgets it, and must not be an unhandled rejection of the same error.
    void p.finally(() => this.work.delete(p)).catch(() => {});
    return p;
  }

  private async connect(): Promise<void> {
    if (!this.online || this.stream) return;
    const controller = new AbortController();
    this.stream = controller;
    let opened: { status: number; body: IncomingMessage | null };
    try {
      opened = await this.openStream(controller);
    } catch {
      if (this.stream === controller) this.stream = null;
      this.scheduleReconnect();
      return;
    }
    if (opened.status === 401) {
      // The app registers again on 401.
      this.stream = null;
      this.log('device token refused; registering again');
      await this.register();
      this.scheduleReconnect(0);
      return;
    }
    if (opened.status !== 200 || !opened.body) {
      this.stream = null;
      this.scheduleReconnect();
      return;
    }
    this.connections++;
    this.log('SSE connected');
    // The app pulls on every open: an event missed while disconnected costs nothing.
    void this.track(this.pull());
    this.read(opened.body, controller);
  }

  /**
   * The SSE request, with node:http rather than fetch: aborting a fetch stream makes its pool open
   * a spare connection that holds a server's close up (undici), and the app's OkHttp does not.
   */
  private openStream(controller: AbortController): Promise<{ status: number; body: IncomingMessage | null }> {
    return new Promise((resolve, reject) => {
      const url = new URL(`${this.base}/events`);
      const req = (url.protocol === 'https:' ? https : http).request(
        url,
        {
          method: 'GET',
          headers: this.headers({ authorization: `Bearer ${this.token}`, accept: 'text/event-stream' }),
          signal: controller.signal,
          agent: false,
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            return resolve({ status: res.statusCode ?? 0, body: null });
          }
          resolve({ status: 200, body: res });
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  private scheduleReconnect(ms = this.opts.reconnectMs ?? 5_000): void {
    if (!this.online || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, ms);
  }

  private read(body: IncomingMessage, controller: AbortController): void {
    let buffer = '';
    body.setEncoding('utf8');
    body.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        this.onEvent(block);
      }
    });
    const done = () => {
      if (this.stream === controller) this.stream = null;
      this.scheduleReconnect();
    };
    body.once('close', done);
    body.once('error', () => {});
  }

  private onEvent(block: string): void {
    const lines = block.split('\n');
    if (lines.every((l) => l.startsWith(':'))) return; // keep-alive comment
    const type =
      lines
        .find((l) => l.startsWith('event:'))
        ?.slice(6)
        .trim() ?? 'MessageEnqueued';
    this.events.push(type);
    if (type === 'MessageEnqueued') void this.track(this.pull());
  }

  /** `GET /message` and processes what it returns; concurrent asks collapse into one more pull. */
  pull(): Promise<void> {
    if (this.pulling) {
      this.pullAgain = true;
      return this.pulling;
    }
    this.pulling = (async () => {
      do {
        this.pullAgain = false;
        await this.pullOnce();
      } while (this.pullAgain && this.online);
    })().finally(() => (this.pulling = null));
    return this.pulling;
  }

  private async pullOnce(): Promise<void> {
    if (!this.online) return;
    let res: Response;
    try {
      res = await fetch(`${this.base}/message?order=${this.opts.order ?? 'lifo'}`, { headers: this.headers({ authorization: `Bearer ${this.token}` }) });
    } catch {
      return;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      return;
    }
    const messages = (await res.json()) as Array<{
      id: string;
      textMessage?: { text: string };
      message?: string;
      phoneNumbers: string[];
      simNumber?: number;
      withDeliveryReport?: boolean;
      state?: string;
      validUntil?: string;
    }>;
    this.pulls.push(messages.map((m) => m.id));
    if (messages.length > 0) this.log(`pulled ${messages.length} message(s)`);
    for (const m of messages) {
      if (m.state !== undefined && m.state !== 'Pending') continue;
      const known = this.stored.get(m.id);
      if (known) {
        // The app: an id already in its database is not sent again; its stored state is re-reported.
        this.log(`message ${m.id} already held (${known.state}): re-reporting, not sending`);
        void this.track(this.report(known.id));
        continue;
      }
      const script = this.scripts.shift() ?? this.opts.defaultScript ?? { kind: 'deliver' };
      void this.track(this.process(m, script));
    }
  }

  private async process(
    m: {
      id: string;
      textMessage?: { text: string };
      message?: string;
      phoneNumbers: string[];
      simNumber?: number;
      withDeliveryReport?: boolean;
      validUntil?: string;
    },
    script: MessageScript,
  ): Promise<void> {
    const msg: StoredMessage = {
      id: m.id,
      phoneNumbers: m.phoneNumbers,
      state: 'Pending',
      states: {},
      error: null,
      loseReports: script.kind === 'lose_reports',
    };
    this.stored.set(m.id, msg);
    await this.setState(msg, 'Pending');
    if (script.kind === 'hold') return;
    // The app checks validUntil with its own clock before sending.
    if (m.validUntil !== undefined && Date.parse(m.validUntil) < this.now()) return this.setState(msg, 'Failed', 'TTL expired');
    if (script.kind === 'fail') return this.setState(msg, 'Failed', script.error);
    const text = m.textMessage?.text ?? m.message ?? '';
    const withDeliveryReport = m.withDeliveryReport !== false;
    this.sends.push({ messageId: m.id, length: text.length, simNumber: m.simNumber ?? null, withDeliveryReport, at: this.now() });
    this.log(`sent message ${m.id}`);
    await this.setState(msg, 'Processed');
    if (this.opts.sendDelayMs) await sleep(this.opts.sendDelayMs);
    await this.setState(msg, 'Sent');
    // Without a delivery report request Android never reports delivery: the message stays Sent.
    if (script.kind === 'sent' || !withDeliveryReport) return;
    if (this.opts.deliverDelayMs) await sleep(this.opts.deliverDelayMs);
    await this.setState(msg, 'Delivered');
  }

  private async setState(msg: StoredMessage, state: SimState, error: string | null = null): Promise<void> {
    msg.state = state;
    msg.states[state] = new Date(this.now()).toISOString();
    if (error !== null) msg.error = error;
    if (msg.loseReports) return; // The report never reaches the server (abandoned, or the phone went away first).
    await this.report(msg.id);
  }

  /** `PATCH /message` with the message's current state and history; held back while offline. */
  private async report(id: string): Promise<void> {
    const msg = this.stored.get(id);
    if (!msg) return;
    if (!this.online) {
      this.pendingReports.push(id);
      return;
    }
    const body = [
      {
        id: msg.id,
        state: msg.state,
        recipients: msg.phoneNumbers.map((p) => ({ phoneNumber: p, state: msg.state, ...(msg.error ? { error: msg.error } : {}) })),
        states: msg.states,
      },
    ];
    try {
      const res = await fetch(`${this.base}/message`, {
        method: 'PATCH',
        headers: this.headers({ authorization: `Bearer ${this.token}`, 'content-type': 'application/json' }),
        body: JSON.stringify(body),
      });
      await res.body?.cancel();
      if (res.status >= 500 || res.status === 401) this.pendingReports.push(id);
      else this.log(`reported message ${id}: ${msg.state}`);
    } catch {
      this.pendingReports.push(id);
    }
  }

  private async flushReports(): Promise<void> {
    const ids = [...new Set(this.pendingReports.splice(0))];
    for (const id of ids) await this.report(id);
  }
}
