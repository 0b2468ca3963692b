/**
 * The sandbox's delivery callbacks, like a provider dashboard's webhook setting: one URL and
 * Standard Webhooks secret per channel. Each message accepted while its channel has a
 * registration gets a planned event sequence (callback-plan.ts), emitted one after another;
 * each emission is POSTed signed, retried on a network error or 5xx after the behaviour's
 * `retry_delays_ms`, and given up on a 2xx (acknowledged) or any other status (failed). The
 * registration in force when an event is due is the one used, as with a real provider.
 */
import { randomBytes } from 'node:crypto';
import type { Channel } from '../domain/index.js';
import { generateWebhookSecret, isWebhookSecret, signWebhook } from '../signing/standard-webhooks.js';
import type { BehaviourController } from './behaviour.js';
import { planCallbacks, type CallbackPlan, type CallbackStatus, type PlannedEvent } from './callback-plan.js';
import { CallbackTransport } from './callback-post.js';
import type { Ledger } from './ledger.js';
import type { RandomSource } from './random.js';
import { SpecError, specBody } from './spec-error.js';

/** One channel's callback setting; also the `PUT /callbacks/<channel>` wire shape. */
export interface CallbackRegistration {
  url: string;
  /** `whsec_` + base64 of 24 to 64 bytes; generated when a registration gives none. */
  secret: string;
}

export interface CallbackCounters {
  /** Events emitted for the first time (each event id once). */
  emitted: number;
  /** Emissions that repeated an already emitted event id. */
  duplicates: number;
  /** Delivery attempts after the first, following a network error or 5xx. */
  retried: number;
  /** Emissions the receiver answered 2xx. */
  acknowledged: number;
  /** Emissions given up: a non-2xx, non-5xx answer, or the last retry failed. */
  failed: number;
  /** Emissions skipped because their channel had no registration any more when they were due. */
  dropped: number;
}

/** What the dispatcher needs to know about an accepted message. */
export interface AcceptedMessage {
  providerMessageId: string;
  /** The send's Idempotency-Key. */
  reference: string;
  channel: Channel;
}

/** A registration that cannot be applied; `field` names the offending field. */
export class CallbackSpecError extends SpecError {
  override readonly name = 'CallbackSpecError';
}

interface BuiltEvent {
  id: string;
  body: Buffer;
}

export interface DispatcherDeps {
  random: RandomSource;
  behaviour: BehaviourController;
  ledger: Ledger;
  now: () => Date;
  /** Resolves true after `ms`, or false if the sandbox closed first. */
  delay: (ms: number) => Promise<boolean>;
}

/** One callback event's fields, before they are laid out on the wire. */
export interface CallbackEventFields {
  eventId: string;
  occurredAt: Date;
  providerMessageId: string;
  /** The send's Idempotency-Key; omitted from the body when undefined. */
  reference: string | undefined;
  channel: Channel;
  status: CallbackStatus;
  bounceType?: 'hard' | undefined;
}

/**
 * Lays out one callback event as the sandbox posts it (the bytes it signs). Exported so the
 * callback verifier conformance suite signs exactly what the sandbox sends.
 */
export function callbackEventBody(fields: CallbackEventFields): Buffer {
  // Field order and names are the wire format Herald's sandbox verifier parses.
  const body = {
    type: `message.${fields.status}`,
    timestamp: fields.occurredAt.toISOString(),
    data: {
      event_id: fields.eventId,
      provider_message_id: fields.providerMessageId,
      reference: fields.reference,
      channel: fields.channel,
      status: fields.status,
      bounce_type: fields.bounceType,
    },
  };
  return Buffer.from(JSON.stringify(body));
}

const REGISTRATION_FIELDS: ReadonlySet<string> = new Set(['url', 'secret']);

/** Validates a registration request, generating a secret when none is given. */
export function parseRegistration(input: unknown): CallbackRegistration {
  const { url, secret } = specBody(input, CallbackSpecError, REGISTRATION_FIELDS);
  let parsed: URL | null = null;
  try {
    parsed = typeof url === 'string' ? new URL(url) : null;
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new CallbackSpecError('url', 'url must be an http or https URL');
  }
  if (secret !== undefined && (typeof secret !== 'string' || !isWebhookSecret(secret))) {
    throw new CallbackSpecError('secret', 'secret must be whsec_ followed by base64 of 24 to 64 bytes');
  }
  return { url: parsed.toString(), secret: secret ?? generateWebhookSecret() };
}

/** Registrations, scheduled emissions and their counters for one sandbox. */
export class CallbackDispatcher {
  readonly #deps: DispatcherDeps;
  readonly #registrations = new Map<Channel, CallbackRegistration>();
  readonly #counters: CallbackCounters = { emitted: 0, duplicates: 0, retried: 0, acknowledged: 0, failed: 0, dropped: 0 };
  readonly #abort = new AbortController();
  readonly #transport = new CallbackTransport();
  readonly #idleWaiters: Array<() => void> = [];
  #active = 0;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
  }

  /** Sets the channel's URL and secret (replacing any), returning it; throws CallbackSpecError on bad input. */
  register(channel: Channel, input: { url: string; secret?: string }): CallbackRegistration {
    const registration = parseRegistration(input);
    this.#registrations.set(channel, registration);
    return { ...registration };
  }

  /** Removes the channel's registration; true if there was one. */
  unregister(channel: Channel): boolean {
    return this.#registrations.delete(channel);
  }

  /** Returns copies of the registrations, by channel. */
  registrations(): Partial<Record<Channel, CallbackRegistration>> {
    const listed: Partial<Record<Channel, CallbackRegistration>> = {};
    for (const [channel, registration] of this.#registrations) listed[channel] = { ...registration };
    return listed;
  }

  /** Returns a copy of the counters. */
  counters(): CallbackCounters {
    return { ...this.#counters };
  }

  /** Resolves once no emission is scheduled or in flight (at once when none is). */
  idle(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Plans and starts the callbacks of a message just accepted, if its channel has a
   * registration. Resolves at once, or with `emit_before_response` once the first emission
   * has been delivered or given up (the caller answers the send only then).
   */
  schedule(message: AcceptedMessage): Promise<void> {
    if (this.#abort.signal.aborted || !this.#registrations.has(message.channel)) return Promise.resolve();
    const behaviour = this.#deps.behaviour.get();
    const plan = planCallbacks(message.channel, behaviour, this.#deps.random);
    let firstDone: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      firstDone = resolve;
    });
    this.#active += 1;
    void this.#run(message, plan, behaviour.emit_before_response, firstDone);
    return behaviour.emit_before_response ? first : Promise.resolve();
  }

  /** Aborts every delivery in flight and destroys pooled sockets; scheduled emissions end without effect. */
  close(): void {
    this.#abort.abort();
    this.#transport.destroy();
  }

  async #run(message: AcceptedMessage, plan: CallbackPlan, firstNow: boolean, firstDone: () => void): Promise<void> {
    const built: Array<BuiltEvent | undefined> = [];
    try {
      for (const [index, emission] of plan.emissions.entries()) {
        if (!(index === 0 && firstNow) && !(await this.#deps.delay(emission.delayMs))) return;
        const registration = this.#registrations.get(message.channel);
        if (registration === undefined) {
          this.#counters.dropped += 1;
        } else {
          let event = built[emission.event];
          if (event === undefined) {
            const planned = plan.events[emission.event]!;
            event = this.#build(message, planned);
            built[emission.event] = event;
            this.#counters.emitted += 1;
            this.#deps.ledger.recordStatus(message.providerMessageId, planned.status);
          } else {
            this.#counters.duplicates += 1;
          }
          await this.#deliver(registration, event);
        }
        if (index === 0) firstDone();
      }
    } catch {
      // Written decision: a bug here must not take the sandbox down with an unhandled
      // rejection, and the sandbox logs nothing; the lost emission shows as `failed`.
      this.#counters.failed += 1;
    } finally {
      firstDone();
      this.#active -= 1;
      if (this.#active === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
    }
  }

  #build(message: AcceptedMessage, planned: PlannedEvent): BuiltEvent {
    const id = `evt_${randomBytes(12).toString('hex')}`;
    const includeReference = this.#deps.behaviour.get().include_reference;
    const body = callbackEventBody({
      eventId: id,
      occurredAt: this.#deps.now(),
      providerMessageId: message.providerMessageId,
      reference: includeReference ? message.reference : undefined,
      channel: message.channel,
      status: planned.status,
      bounceType: planned.bounceType,
    });
    return { id, body };
  }

  async #deliver(registration: CallbackRegistration, event: BuiltEvent): Promise<void> {
    const { retry_delays_ms: retryDelays, delivery_timeout_ms: timeoutMs } = this.#deps.behaviour.get();
    const url = new URL(registration.url);
    for (let attempt = 0; ; attempt += 1) {
      // Signed per attempt: webhook-timestamp is the time of this attempt (Standard Webhooks).
      const signed = signWebhook([registration.secret], event.id, this.#deps.now().getTime(), event.body);
      const headers = { 'content-type': 'application/json', 'user-agent': 'herald-sandbox-callbacks', ...signed };
      const result = await this.#transport.post({ url, headers, body: event.body, timeoutMs, signal: this.#abort.signal });
      if (this.#abort.signal.aborted) return;
      if (result.kind === 'answered' && result.status < 500) {
        if (result.status >= 200 && result.status < 300) this.#counters.acknowledged += 1;
        else this.#counters.failed += 1;
        return;
      }
      const wait = retryDelays[attempt];
      if (wait === undefined) {
        this.#counters.failed += 1;
        return;
      }
      this.#counters.retried += 1;
      if (!(await this.#deps.delay(wait))) return;
    }
  }
}
