/** `GET /v1/messages?reference=`: look-up by Herald's reference, and the fault that breaks it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { startReceiver } from './callback-receiver.js';
import { answered, freshKey, rawRequest, sendEmail, sendSms } from './raw-http.js';

let sandbox: SandboxHandle;

beforeEach(async () => {
  sandbox = await startSandbox({ seed: 2 });
});

afterEach(async () => {
  await sandbox.close();
});

function lookup(reference: string | null, headers: Record<string, string> = {}, target = sandbox) {
  const query = reference === null ? '' : `?reference=${encodeURIComponent(reference)}`;
  return rawRequest(target.url, { path: `/v1/messages${query}`, headers });
}

describe('look-up by reference', () => {
  it('an unknown reference: 200 with an empty data list (authoritative not found)', async () => {
    const res = answered(await lookup(freshKey('never')));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('a sent message: its id, reference, channel, status accepted and received_at; never the destination', async () => {
    const key = freshKey('found');
    const sent = answered(await sendSms(sandbox.url, key));
    const res = answered(await lookup(key));
    expect(res.body).toEqual({
      data: [{ id: sent.body.sid, reference: key, channel: 'sms', status: 'accepted', received_at: sandbox.ledger.entries()[0]!.received_at }],
    });
    expect(JSON.stringify(res.body)).not.toContain('+1555');
  });

  it('a message whose response was lost is found', async () => {
    sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    const key = freshKey('lost');
    expect((await sendEmail(sandbox.url, key)).kind).toBe('error');
    const res = answered(await lookup(key));
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].id).toBe(sandbox.ledger.entries()[0]!.provider_message_id);
  });

  it('a message held unanswered and never accepted is not found', async () => {
    sandbox.faults.set({ mode: 'timeout_before_accept', count: 1 });
    const key = freshKey('held');
    expect(await sendEmail(sandbox.url, key, { timeoutMs: 100 })).toEqual({ kind: 'timeout' });
    expect(answered(await lookup(key)).body).toEqual({ data: [] });
  });

  it('a duplicate shows as two messages', async () => {
    const key = freshKey('dup');
    await sendEmail(sandbox.url, key);
    await sendEmail(sandbox.url, key);
    expect(answered(await lookup(key)).body.data).toHaveLength(2);
  });

  it('status is the furthest status the callbacks emitted', async () => {
    const receiver = await startReceiver();
    try {
      sandbox.callbacks.register('email', { url: receiver.url });
      sandbox.behaviour.set({ complaint_probability: 1 });
      const key = freshKey();
      await sendEmail(sandbox.url, key);
      await sandbox.idle();
      expect(answered(await lookup(key)).body.data[0].status).toBe('complained');
    } finally {
      await receiver.close();
    }
  });

  it('needs the same bearer key as sends', async () => {
    const guarded = await startSandbox({ apiKey: 'sk_lookup' });
    try {
      expect(answered(await lookup('k', {}, guarded)).status).toBe(401);
      expect(answered(await lookup('k', { authorization: 'Bearer nope' }, guarded)).status).toBe(401);
      expect(answered(await lookup('k', { authorization: 'Bearer sk_lookup' }, guarded)).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('refuses a missing or too long reference (400) and other methods (405)', async () => {
    expect(answered(await lookup(null)).status).toBe(400);
    expect(answered(await lookup('x'.repeat(257))).status).toBe(400);
    expect(answered(await lookup('x'.repeat(256))).status).toBe(200);
    expect(answered(await rawRequest(sandbox.url, { method: 'POST', path: '/v1/messages?reference=k' })).status).toBe(405);
  });
});

describe('lookup_unavailable fault', () => {
  it('answers 503 for the next N look-ups, then answers again', async () => {
    const set = answered(await rawRequest(sandbox.url, { method: 'POST', path: '/faults', body: { mode: 'lookup_unavailable', count: 2 } }));
    expect(set.status).toBe(200);
    const key = freshKey();
    await sendEmail(sandbox.url, key);
    expect(answered(await lookup(key)).status).toBe(503);
    expect(answered(await lookup(key)).body).toEqual({ error: 'server_error' });
    expect(answered(await lookup(key)).body.data).toHaveLength(1);
  });

  it('sends do not consume it, and look-ups do not consume send faults', async () => {
    sandbox.faults.set({ mode: 'lookup_unavailable', count: 1 });
    sandbox.faults.set({ mode: 'server_error', count: 1 });
    expect(answered(await lookup('k')).status).toBe(503);
    expect(sandbox.faults.list()).toEqual([{ mode: 'server_error', count: 1 }]);
    expect(answered(await lookup('k')).status).toBe(200);
    expect(answered(await sendEmail(sandbox.url, freshKey())).status).toBe(503);
  });

  it('a refused look-up (bad auth) does not consume it', async () => {
    const guarded = await startSandbox({ apiKey: 'sk' });
    try {
      guarded.faults.set({ mode: 'lookup_unavailable', probability: 1 });
      expect(answered(await lookup('k', {}, guarded)).status).toBe(401);
      expect(answered(await lookup('k', { authorization: 'Bearer sk' }, guarded)).status).toBe(503);
    } finally {
      await guarded.close();
    }
  });
});
