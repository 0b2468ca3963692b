/**
 * Callback misbehaviour and timing: emit-before-response, reordering, duplicates, delays,
 * registration changes while events are pending, close, and reproducibility per seed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '../../src/signing/standard-webhooks.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { startReceiver, type CallbackReceiver } from './callback-receiver.js';
import { answered, freshKey, rawRequest, sendSms, type RawResult } from './raw-http.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ROTATED = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
let sandbox: SandboxHandle;
let receiver: CallbackReceiver;

beforeEach(async () => {
  sandbox = await startSandbox({ seed: 17 });
  receiver = await startReceiver();
  sandbox.callbacks.register('sms', { url: receiver.url, secret: SECRET });
});

afterEach(async () => {
  await sandbox.close();
  await receiver.close();
});

function statuses(target: CallbackReceiver = receiver): string[] {
  return target.received.map((c) => c.body.data.status);
}

function held(): { answer: Promise<number>; release: () => void } {
  let release: () => void = () => {};
  const answer = new Promise<number>((resolve) => {
    release = () => resolve(200);
  });
  return { answer, release };
}

describe('emit_before_response', () => {
  it('the sent callback reaches the receiver, and is acknowledged, before the send returns', async () => {
    sandbox.behaviour.set({ emit_before_response: true });
    const gate = held();
    receiver.answer = (_, index) => (index === 0 ? gate.answer : 200);
    let returned = false;
    const sending = sendSms(sandbox.url, freshKey('early')).then((result) => {
      returned = true;
      return result;
    });
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 5_000, interval: 5 });
    expect(statuses()).toEqual(['sent']);
    // Held at the receiver: the sandbox has not answered the send.
    await new Promise((resolve) => setImmediate(resolve));
    expect(returned).toBe(false);
    gate.release();
    const res = answered(await sending);
    expect(res.status).toBe(201);
    // The callback named a message id the client learned only afterwards.
    expect(receiver.received[0]!.body.data.provider_message_id).toBe(res.body.sid);
    await sandbox.idle();
    expect(statuses()).toEqual(['sent', 'delivered']);
  });

  it('off (the default): the send returns while its callback is still held', async () => {
    const gate = held();
    receiver.answer = (_, index) => (index === 0 ? gate.answer : 200);
    const res = answered(await sendSms(sandbox.url, freshKey()));
    expect(res.status).toBe(201);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 5_000, interval: 5 });
    gate.release();
    await sandbox.idle();
    expect(statuses()).toEqual(['sent', 'delivered']);
  });

  it('with a lost response: the callback arrives, the client hears nothing', async () => {
    sandbox.behaviour.set({ emit_before_response: true });
    sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    const key = freshKey('lost');
    expect(await sendSms(sandbox.url, key)).toEqual({ kind: 'error', code: 'ECONNRESET' });
    expect(receiver.received.map((c) => c.body.data.reference)).toEqual([key]);
    await sandbox.idle();
  });
});

describe('misbehaviour', () => {
  it('reorder_probability 1: delivered arrives before sent; the ledger reports delivered', async () => {
    sandbox.behaviour.set({ reorder_probability: 1 });
    const res = answered(await sendSms(sandbox.url, freshKey()));
    await sandbox.idle();
    expect(statuses()).toEqual(['delivered', 'sent']);
    expect(sandbox.ledger.statuses(res.body.sid)).toEqual(['delivered', 'sent']);
    expect(sandbox.ledger.currentStatus(res.body.sid)).toBe('delivered');
  });

  it('duplicate_probability 1: each event again, same id and body, freshly signed', async () => {
    sandbox.behaviour.set({ duplicate_probability: 1 });
    const res = answered(await sendSms(sandbox.url, freshKey()));
    await sandbox.idle();
    expect(statuses()).toEqual(['sent', 'delivered', 'sent', 'delivered']);
    const [sent, delivered, sentAgain, deliveredAgain] = receiver.received;
    expect(sentAgain!.headers['webhook-id']).toBe(sent!.headers['webhook-id']);
    expect(deliveredAgain!.headers['webhook-id']).toBe(delivered!.headers['webhook-id']);
    expect(sentAgain!.rawBody.equals(sent!.rawBody)).toBe(true);
    for (const c of receiver.received) expect(verifyWebhook([SECRET], c.headers, c.rawBody, Date.now()).ok).toBe(true);
    expect(sandbox.callbacks.counters()).toMatchObject({ emitted: 2, duplicates: 2, acknowledged: 4 });
    expect(sandbox.ledger.statuses(res.body.sid)).toEqual(['sent', 'delivered']);
  });

  it('delay_ms: each emission waits its delay after the previous one', async () => {
    sandbox.behaviour.set({ delay_ms: { min: 60, max: 60 } });
    const started = Date.now();
    await sendSms(sandbox.url, freshKey());
    await sandbox.idle();
    expect(statuses()).toEqual(['sent', 'delivered']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });
});

describe('registration changes and close', () => {
  beforeEach(() => {
    sandbox.behaviour.set({ delay_ms: { min: 40, max: 40 } });
  });

  it('events use the registration in force when they are due: a rotated secret signs them', async () => {
    await sendSms(sandbox.url, freshKey());
    sandbox.callbacks.register('sms', { url: receiver.url, secret: ROTATED });
    await sandbox.idle();
    for (const c of receiver.received) {
      expect(verifyWebhook([ROTATED], c.headers, c.rawBody, Date.now()).ok).toBe(true);
      expect(verifyWebhook([SECRET], c.headers, c.rawBody, Date.now()).ok).toBe(false);
    }
  });

  it('a registration removed before its events are due drops them', async () => {
    await sendSms(sandbox.url, freshKey());
    expect(answered(await rawRequest(sandbox.url, { method: 'DELETE', path: '/callbacks/sms' })).body).toEqual({ callbacks: {} });
    await sandbox.idle();
    expect(receiver.received).toEqual([]);
    expect(sandbox.callbacks.counters()).toMatchObject({ emitted: 0, dropped: 2 });
  });

  it('close ends pending callbacks promptly and idle() resolves', async () => {
    sandbox.behaviour.set({ delay_ms: { min: 60_000, max: 60_000 } });
    await sendSms(sandbox.url, freshKey());
    const idle = sandbox.idle();
    const started = Date.now();
    await sandbox.close();
    await idle;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(receiver.received).toEqual([]);
  });

  it('GET /idle waits for quiet, or reports idle false after timeout_ms', async () => {
    const gate = held();
    receiver.answer = (_, index) => (index === 0 ? gate.answer : 200);
    sandbox.behaviour.set({ delay_ms: { min: 0, max: 0 } });
    await sendSms(sandbox.url, freshKey());
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 5_000, interval: 5 });
    const busy = answered(await rawRequest(sandbox.url, { path: '/idle?timeout_ms=20' }));
    expect(busy.body).toMatchObject({ idle: false });
    gate.release();
    const quiet = answered(await rawRequest(sandbox.url, { path: '/idle?timeout_ms=5000' }));
    expect(quiet.body).toEqual({ idle: true, counters: expect.objectContaining({ emitted: 2, acknowledged: 2 }) });
  });
});

describe('reproducibility', () => {
  const MIXED = { bounce_probability: 0.5, duplicate_probability: 0.5, reorder_probability: 0.5 };

  async function run(seed: number): Promise<string[]> {
    const target = await startSandbox({ seed, behaviour: MIXED });
    const sink = await startReceiver();
    target.callbacks.register('sms', { url: sink.url, secret: SECRET });
    try {
      const perMessage: string[] = [];
      for (let i = 0; i < 12; i += 1) {
        const res = answered(await sendSms(target.url, freshKey('repro')));
        await target.idle();
        perMessage.push(
          sink.received
            .filter((c) => c.body.data.provider_message_id === res.body.sid)
            .map((c) => c.body.data.status)
            .join(','),
        );
      }
      return perMessage;
    } finally {
      await target.close();
      await sink.close();
    }
  }

  it('the same seed plans the same callbacks; another seed differs', async () => {
    const first = await run(21);
    expect(await run(21)).toEqual(first);
    expect(await run(22)).not.toEqual(first);
    expect(first.join('|')).toMatch(/failed/);
  });

  it('registering callbacks does not shift which sends a probability fault hits', async () => {
    async function pattern(withCallbacks: boolean): Promise<string> {
      const target = await startSandbox({ seed: 7, behaviour: MIXED });
      if (withCallbacks) target.callbacks.register('sms', { url: receiver.url, secret: SECRET });
      target.faults.set({ mode: 'server_error', probability: 0.5 });
      let seen = '';
      for (let i = 0; i < 30; i += 1) {
        const result: RawResult = await sendSms(target.url, freshKey());
        seen += answered(result).status === 503 ? 'X' : '.';
      }
      await target.idle();
      await target.close();
      return seen;
    }
    expect(await pattern(true)).toBe(await pattern(false));
  });
});
