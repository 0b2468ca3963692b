/**
 * `dedupe_by_key`: the sandbox imitating Resend/Telnyx, where a repeated Idempotency-Key
 * within 24 h returns the original acceptance and sends nothing new.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { startReceiver } from './callback-receiver.js';
import { answered, freshKey, rawRequest, sendEmail, sendSms } from './raw-http.js';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const DAY = 24 * 60 * 60 * 1000;
const started: SandboxHandle[] = [];

async function sandboxWith(options: Parameters<typeof startSandbox>[0] = {}): Promise<SandboxHandle> {
  const sandbox = await startSandbox({ seed: 5, ...options });
  started.push(sandbox);
  return sandbox;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

describe('dedupe_by_key', () => {
  it('is off by default: the same key twice is two messages', async () => {
    const sandbox = await sandboxWith();
    expect(sandbox.behaviour.get().dedupe_by_key).toBe(false);
    const key = freshKey();
    const first = answered(await sendEmail(sandbox.url, key));
    const second = answered(await sendEmail(sandbox.url, key));
    expect(second.body.id).not.toBe(first.body.id);
    expect(sandbox.ledger.countByKey(key)).toBe(2);
  });

  it('start option: a repeat replays the original answer, marked, and records nothing', async () => {
    const sandbox = await sandboxWith({ behaviour: { dedupe_by_key: true } });
    const key = freshKey();
    const first = answered(await sendEmail(sandbox.url, key));
    const second = answered(await sendEmail(sandbox.url, key));
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(sandbox.ledger.countByKey(key)).toBe(1);
  });

  it('sms replays the original Twilio answer (201, same sid)', async () => {
    const sandbox = await sandboxWith({ behaviour: { dedupe_by_key: true } });
    const key = freshKey();
    const first = answered(await sendSms(sandbox.url, key));
    const second = answered(await sendSms(sandbox.url, key));
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.sid).toBe(first.body.sid);
    expect(sandbox.ledger.entries()).toHaveLength(1);
  });

  it('PUT /behaviour turns it on, covering keys accepted before', async () => {
    const sandbox = await sandboxWith();
    const key = freshKey();
    const first = answered(await sendEmail(sandbox.url, key));
    const put = answered(await rawRequest(sandbox.url, { method: 'PUT', path: '/behaviour', body: { dedupe_by_key: true } }));
    expect(put.status).toBe(200);
    expect(put.body.behaviour.dedupe_by_key).toBe(true);
    expect(answered(await sendEmail(sandbox.url, key)).body.id).toBe(first.body.id);
    expect(sandbox.ledger.countByKey(key)).toBe(1);
  });

  it('a key whose first response was lost: the retry gets the original acceptance', async () => {
    const sandbox = await sandboxWith({ behaviour: { dedupe_by_key: true } });
    sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    const key = freshKey('lost');
    expect(await sendEmail(sandbox.url, key)).toEqual({ kind: 'error', code: 'ECONNRESET' });
    const retry = answered(await sendEmail(sandbox.url, key));
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(sandbox.ledger.entries()[0]!.provider_message_id);
    expect(sandbox.ledger.countByKey(key)).toBe(1);
  });

  it('faults still apply to a repeat; the replay comes once they pass', async () => {
    const sandbox = await sandboxWith({ behaviour: { dedupe_by_key: true } });
    const key = freshKey();
    const first = answered(await sendEmail(sandbox.url, key));
    sandbox.faults.set({ mode: 'server_error', count: 1 });
    expect(answered(await sendEmail(sandbox.url, key)).status).toBe(503);
    expect(answered(await sendEmail(sandbox.url, key)).body.id).toBe(first.body.id);
  });

  it('a replay emits no callbacks', async () => {
    const receiver = await startReceiver();
    try {
      const sandbox = await sandboxWith({
        behaviour: { dedupe_by_key: true },
        callbacks: { email: { url: receiver.url } },
      });
      const key = freshKey();
      await sendEmail(sandbox.url, key);
      await sendEmail(sandbox.url, key);
      await sandbox.idle();
      expect(receiver.received.map((c) => c.body.data.status)).toEqual(['sent', 'delivered']);
    } finally {
      await receiver.close();
    }
  });

  it('keys are per channel, last 24 hours, and are forgotten with DELETE /ledger', async () => {
    let now = T0;
    const sandbox = await sandboxWith({ behaviour: { dedupe_by_key: true }, now: () => new Date(now) });
    const key = freshKey();
    const email = answered(await sendEmail(sandbox.url, key));
    answered(await sendSms(sandbox.url, key));
    expect(sandbox.ledger.countByKey(key)).toBe(2);

    now = T0 + DAY - 1;
    expect(answered(await sendEmail(sandbox.url, key)).body.id).toBe(email.body.id);
    now = T0 + DAY;
    const fresh = answered(await sendEmail(sandbox.url, key));
    expect(fresh.body.id).not.toBe(email.body.id);
    expect(sandbox.ledger.entries({ idempotency_key: key, channel: 'email' })).toHaveLength(2);

    answered(await rawRequest(sandbox.url, { method: 'DELETE', path: '/ledger' }));
    const afterClear = answered(await sendEmail(sandbox.url, key));
    expect(afterClear.body.id).not.toBe(fresh.body.id);
    expect(sandbox.ledger.countByKey(key)).toBe(1);
  });
});
