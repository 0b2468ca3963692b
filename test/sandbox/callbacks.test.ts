/**
 * The sandbox's delivery callbacks end to end: a real receiver, registration over the control
 * API, the exact wire format and signatures, the event sequence per channel, and delivery
 * retries. Tests wait with `sandbox.idle()`, never with a sleep.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/signing/standard-webhooks.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { startReceiver, type CallbackReceiver } from './callback-receiver.js';
import { answered, freshKey, rawRequest, sendEmail, sendSms } from './raw-http.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let sandbox: SandboxHandle;
let receiver: CallbackReceiver;

beforeEach(async () => {
  sandbox = await startSandbox({ seed: 11 });
  receiver = await startReceiver();
});

afterEach(async () => {
  await sandbox.close();
  await receiver.close();
});

async function control(method: string, path: string, body?: object) {
  return answered(await rawRequest(sandbox.url, { method, path, ...(body === undefined ? {} : { body }) }));
}

async function register(channel: string, extra: object = {}): Promise<void> {
  const res = await control('PUT', `/callbacks/${channel}`, { url: receiver.url, secret: SECRET, ...extra });
  expect(res.status).toBe(200);
}

function statuses(): string[] {
  return receiver.received.map((c) => c.body.data.status);
}

describe('wire format', () => {
  it('sms: sent then delivered, signed with the registered secret, in the documented shape', async () => {
    await register('sms');
    const key = freshKey('cb');
    const res = answered(await sendSms(sandbox.url, key));
    expect(res.status).toBe(201);
    await sandbox.idle();

    expect(statuses()).toEqual(['sent', 'delivered']);
    for (const callback of receiver.received) {
      expect(callback.headers['content-type']).toBe('application/json');
      const verified = verifyWebhook([SECRET], callback.headers, callback.rawBody, Date.now());
      expect(verified).toEqual({ ok: true, id: callback.body.data.event_id, timestampMs: expect.any(Number) });
      expect(callback.headers['webhook-id']).toBe(callback.body.data.event_id);
      expect(Object.keys(callback.body)).toEqual(['type', 'timestamp', 'data']);
      expect(Object.keys(callback.body.data)).toEqual(['event_id', 'provider_message_id', 'reference', 'channel', 'status']);
      expect(Number.isNaN(Date.parse(callback.body.timestamp))).toBe(false);
    }
    const [sent, delivered] = receiver.received.map((c) => c.body);
    expect(sent).toEqual({
      type: 'message.sent',
      timestamp: expect.any(String),
      data: { event_id: expect.stringMatching(/^evt_[0-9a-f]+$/), provider_message_id: res.body.sid, reference: key, channel: 'sms', status: 'sent' },
    });
    expect(delivered.type).toBe('message.delivered');
    expect(delivered.data.event_id).not.toBe(sent.data.event_id);
    expect(sandbox.ledger.statuses(res.body.sid)).toEqual(['sent', 'delivered']);
    expect(sandbox.ledger.entries()[0]!.statuses).toEqual(['sent', 'delivered']);
    // GET /ledger shows them too.
    expect(answered(await rawRequest(sandbox.url, { path: '/ledger' })).body.entries[0].statuses).toEqual(['sent', 'delivered']);
    expect(sandbox.callbacks.counters()).toEqual({ emitted: 2, duplicates: 0, retried: 0, acknowledged: 2, failed: 0, dropped: 0 });
  });

  it('a tampered body or another secret does not verify', async () => {
    await register('sms');
    await sendSms(sandbox.url, freshKey());
    await sandbox.idle();
    const [first] = receiver.received;
    const tampered = Buffer.from(first!.rawBody.toString('utf8').replace('"sent"', '"delivered"'));
    expect(verifyWebhook([SECRET], first!.headers, tampered, Date.now())).toEqual({ ok: false, reason: 'bad_signature' });
    const other = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    expect(verifyWebhook([other], first!.headers, first!.rawBody, Date.now()).ok).toBe(false);
  });

  it('without a registration nothing is emitted and idle() resolves at once', async () => {
    const res = answered(await sendSms(sandbox.url, freshKey()));
    await sandbox.idle();
    expect(receiver.received).toEqual([]);
    expect(sandbox.ledger.statuses(res.body.sid)).toEqual([]);
    expect(sandbox.callbacks.counters().emitted).toBe(0);
  });

  it('only the registered channel gets callbacks', async () => {
    await register('email');
    await sendSms(sandbox.url, freshKey());
    await sendEmail(sandbox.url, freshKey());
    await sandbox.idle();
    expect(receiver.received.map((c) => c.body.data.channel)).toEqual(['email', 'email']);
  });

  it('include_reference false omits data.reference', async () => {
    await register('sms');
    expect((await control('PUT', '/behaviour', { include_reference: false })).status).toBe(200);
    await sendSms(sandbox.url, freshKey());
    await sandbox.idle();
    for (const callback of receiver.received) expect(callback.body.data).not.toHaveProperty('reference');
  });
});

describe('event sequences', () => {
  it('email bounce: sent then bounced with bounce_type hard', async () => {
    await register('email');
    await control('PUT', '/behaviour', { bounce_probability: 1 });
    const res = answered(await sendEmail(sandbox.url, freshKey()));
    await sandbox.idle();
    expect(receiver.received.map((c) => c.body.type)).toEqual(['message.sent', 'message.bounced']);
    expect(receiver.received[1]!.body.data.bounce_type).toBe('hard');
    expect(sandbox.ledger.currentStatus(res.body.id)).toBe('bounced');
  });

  it('sms and push "bounce" as failed, without bounce_type', async () => {
    await register('sms');
    await control('PUT', '/behaviour', { bounce_probability: 1 });
    await sendSms(sandbox.url, freshKey());
    await sandbox.idle();
    expect(statuses()).toEqual(['sent', 'failed']);
    expect(receiver.received[1]!.body.data).not.toHaveProperty('bounce_type');
  });

  it('email complaint: after delivered', async () => {
    await register('email');
    await control('PUT', '/behaviour', { complaint_probability: 1 });
    const res = answered(await sendEmail(sandbox.url, freshKey()));
    await sandbox.idle();
    expect(statuses()).toEqual(['sent', 'delivered', 'complained']);
    expect(sandbox.ledger.currentStatus(res.body.id)).toBe('complained');
  });

  it('a lost send response still gets its callbacks: the message was accepted', async () => {
    await register('sms');
    sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    const key = freshKey('lost');
    expect(await sendSms(sandbox.url, key)).toEqual({ kind: 'error', code: 'ECONNRESET' });
    await sandbox.idle();
    expect(statuses()).toEqual(['sent', 'delivered']);
    expect(receiver.received[0]!.body.data.reference).toBe(key);
  });
});

describe('delivery to the URL', () => {
  beforeEach(async () => {
    await control('PUT', '/behaviour', { retry_delays_ms: [5, 5, 5] });
  });

  it('retries a 5xx and a dropped connection with the same event id, then stops on 2xx', async () => {
    receiver.answer = (_, index) => (index === 0 ? 503 : index === 1 ? 'drop' : 200);
    await register('sms');
    await sendSms(sandbox.url, freshKey());
    await sandbox.idle();
    expect(statuses()).toEqual(['sent', 'sent', 'sent', 'delivered']);
    const ids = receiver.received.map((c) => c.headers['webhook-id']);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[1]).toBe(ids[2]);
    expect(sandbox.callbacks.counters()).toMatchObject({ emitted: 2, retried: 2, acknowledged: 2, failed: 0 });
    // Each attempt is signed on its own and verifies.
    for (const c of receiver.received) expect(verifyWebhook([SECRET], c.headers, c.rawBody, Date.now()).ok).toBe(true);
  });

  it('stops on a 4xx without retrying, and goes on with the next event', async () => {
    receiver.answer = (_, index) => (index === 0 ? 400 : 200);
    await register('sms');
    await sendSms(sandbox.url, freshKey());
    await sandbox.idle();
    expect(statuses()).toEqual(['sent', 'delivered']);
    expect(sandbox.callbacks.counters()).toMatchObject({ emitted: 2, retried: 0, acknowledged: 1, failed: 1 });
  });

  it('gives up after the last retry', async () => {
    receiver.answer = () => 500;
    await control('PUT', '/behaviour', { retry_delays_ms: [1, 1] });
    await register('sms');
    const res = answered(await sendSms(sandbox.url, freshKey()));
    await sandbox.idle();
    expect(receiver.received).toHaveLength(6);
    expect(sandbox.callbacks.counters()).toMatchObject({ emitted: 2, retried: 4, acknowledged: 0, failed: 2 });
    // Emitted is what the sandbox did, whether or not the receiver took it.
    expect(sandbox.ledger.statuses(res.body.sid)).toEqual(['sent', 'delivered']);
  });

  it('a receiver that does not answer in delivery_timeout_ms counts as a network error', async () => {
    let held = 0;
    await control('PUT', '/behaviour', { delivery_timeout_ms: 50, retry_delays_ms: [1] });
    // An unanswered URL: a server that accepts the connection and never replies.
    const { createServer } = await import('node:http');
    const silent = createServer(() => {
      held += 1;
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      await control('PUT', '/callbacks/sms', { url: `http://127.0.0.1:${port}/`, secret: SECRET });
      await sendSms(sandbox.url, freshKey());
      await sandbox.idle();
      expect(held).toBe(4);
      expect(sandbox.callbacks.counters()).toMatchObject({ emitted: 2, retried: 2, failed: 2 });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
