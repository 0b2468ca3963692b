import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { answered, freshKey, rawRequest, sendEmail } from './raw-http.js';

let sandbox: SandboxHandle;

beforeEach(async () => {
  sandbox = await startSandbox({ seed: 1 });
});

afterEach(async () => {
  await sandbox.close();
});

const SMS_PATH = '/2010-04-01/Accounts/sandbox/Messages.json';
const PUSH_PATH = '/v1/projects/demo-project/messages:send';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function sendSms(key: string | null, form: Record<string, string>, headers: Record<string, string> = FORM) {
  return rawRequest(sandbox.url, {
    method: 'POST',
    path: SMS_PATH,
    headers: { ...headers, ...(key === null ? {} : { 'idempotency-key': key }) },
    body: new URLSearchParams(form).toString(),
  });
}

function sendPush(key: string | null, body: object) {
  return rawRequest(sandbox.url, {
    method: 'POST',
    path: PUSH_PATH,
    headers: key === null ? {} : { 'idempotency-key': key },
    body,
  });
}

describe('send endpoints accept and record', () => {
  it('email: 200 with an em_ id, recorded once under its key', async () => {
    const key = freshKey('email');
    const res = answered(await sendEmail(sandbox.url, key, { to: 'ada@example.test' }));
    expect(res.status).toBe(200);
    expect(res.body.id).toMatch(/^em_[0-9a-f]+$/);
    const entries = sandbox.ledger.entries();
    expect(entries).toEqual([
      {
        idempotency_key: key,
        channel: 'email',
        destination: 'ada@example.test',
        provider_message_id: res.body.id,
        received_at: expect.any(String),
        statuses: [],
      },
    ]);
    expect(Number.isNaN(Date.parse(entries[0]!.received_at))).toBe(false);
  });

  it('email: a list of recipients is one submission', async () => {
    const key = freshKey('email');
    const res = answered(await sendEmail(sandbox.url, key, { to: ['a@example.test', 'b@example.test'] }));
    expect(res.status).toBe(200);
    expect(sandbox.ledger.entries().map((e) => e.destination)).toEqual(['a@example.test, b@example.test']);
  });

  it('sms: 201 with a Twilio-shaped SID, recorded', async () => {
    const key = freshKey('sms');
    const res = answered(await sendSms(key, { To: '+15551234567', Body: 'Code 123456', From: '+15550000000' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ sid: expect.stringMatching(/^SM[0-9a-f]{32}$/), status: 'queued', to: '+15551234567' });
    expect(sandbox.ledger.entries()).toMatchObject([{ idempotency_key: key, channel: 'sms', destination: '+15551234567', provider_message_id: res.body.sid }]);
  });

  it('push: 200 with an FCM-shaped name under the project, recorded', async () => {
    const key = freshKey('push');
    const res = answered(await sendPush(key, { message: { token: 'device-token-1', notification: { title: 'Hi', body: 'There' } } }));
    expect(res.status).toBe(200);
    expect(res.body.name).toMatch(/^projects\/demo-project\/messages\/[0-9a-f]+$/);
    expect(sandbox.ledger.entries()).toMatchObject([
      { idempotency_key: key, channel: 'push', destination: 'device-token-1', provider_message_id: res.body.name },
    ]);
  });

  it('does not deduplicate: the same key twice is two entries', async () => {
    const key = freshKey('dup');
    expect(answered(await sendEmail(sandbox.url, key)).status).toBe(200);
    expect(answered(await sendEmail(sandbox.url, key)).status).toBe(200);
    expect(sandbox.ledger.countByKey(key)).toBe(2);
    const ids = sandbox.ledger.entries().map((e) => e.provider_message_id);
    expect(new Set(ids).size).toBe(2);
  });
});

describe('refused sends are answered 400 and not recorded', () => {
  it('missing Idempotency-Key on every endpoint', async () => {
    const results = [
      await rawRequest(sandbox.url, {
        method: 'POST',
        path: '/emails',
        body: { to: 'ada@example.test', subject: 's', text: 't' },
      }),
      await sendSms(null, { To: '+15551234567', Body: 'b' }),
      await sendPush(null, { message: { token: 't', notification: { body: 'b' } } }),
    ];
    for (const result of results) {
      expect(answered(result).status).toBe(400);
      expect(answered(result).body).toEqual({ error: 'missing_idempotency_key' });
    }
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  const invalidBodies: Array<{ name: string; send: (key: string) => ReturnType<typeof rawRequest> }> = [
    {
      name: 'email: not JSON',
      send: (key) =>
        rawRequest(sandbox.url, {
          method: 'POST',
          path: '/emails',
          headers: { 'idempotency-key': key, 'content-type': 'application/json' },
          body: '{"to": ',
        }),
    },
    {
      name: 'email: no to',
      send: (key) =>
        rawRequest(sandbox.url, {
          method: 'POST',
          path: '/emails',
          headers: { 'idempotency-key': key },
          body: { subject: 's', text: 't' },
        }),
    },
    {
      name: 'email: no subject',
      send: (key) =>
        rawRequest(sandbox.url, {
          method: 'POST',
          path: '/emails',
          headers: { 'idempotency-key': key },
          body: { to: 'ada@example.test', text: 't' },
        }),
    },
    {
      name: 'email: neither text nor html',
      send: (key) =>
        rawRequest(sandbox.url, {
          method: 'POST',
          path: '/emails',
          headers: { 'idempotency-key': key },
          body: { to: 'ada@example.test', subject: 's' },
        }),
    },
    { name: 'sms: no To', send: (key) => sendSms(key, { Body: 'b' }) },
    { name: 'sms: no Body', send: (key) => sendSms(key, { To: '+15551234567' }) },
    {
      name: 'sms: JSON instead of a form',
      send: (key) => sendSms(key, { To: '+15551234567', Body: 'b' }, { 'content-type': 'application/json' }),
    },
    { name: 'push: no token', send: (key) => sendPush(key, { message: { notification: { body: 'b' } } }) },
    { name: 'push: no notification body', send: (key) => sendPush(key, { message: { token: 't', notification: {} } }) },
  ];

  it.each(invalidBodies)('$name', async ({ send }) => {
    const res = answered(await send(freshKey('invalid')));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: expect.any(String) });
    expect(res.body.message).not.toMatch(/example\.test|\+1555/);
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('magic destinations are refused as invalid_destination', async () => {
    const results = [
      await sendEmail(sandbox.url, freshKey(), { to: 'someone@reject.sandbox.test' }),
      await sendEmail(sandbox.url, freshKey(), { to: ['ok@example.test', 'x@REJECT.sandbox.test'] }),
      await sendSms(freshKey(), { To: '+15005550001', Body: 'b' }),
      await sendPush(freshKey(), { message: { token: 'invalid-abc', notification: { body: 'b' } } }),
    ];
    const quoted = ['someone@reject.sandbox.test', 'x@REJECT.sandbox.test', '+15005550001', 'invalid-abc'];
    for (const [i, result] of results.entries()) {
      expect(answered(result).status).toBe(400);
      expect(answered(result).body).toEqual({ error: 'invalid_destination', message: expect.stringContaining(quoted[i]!) });
    }
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('unknown paths are 404 and wrong methods 405', async () => {
    expect(answered(await rawRequest(sandbox.url, { method: 'POST', path: '/nope' })).status).toBe(404);
    expect(answered(await rawRequest(sandbox.url, { method: 'GET', path: '/emails' })).status).toBe(405);
    expect(answered(await rawRequest(sandbox.url, { method: 'PUT', path: '/ledger' })).status).toBe(405);
  });
});

describe('ledger over HTTP', () => {
  it('lists, filters by key and channel, and clears', async () => {
    const emailKey = freshKey('email');
    const smsKey = freshKey('sms');
    expect(answered(await sendEmail(sandbox.url, emailKey)).status).toBe(200);
    expect(answered(await sendSms(smsKey, { To: '+15551234567', Body: 'b' })).status).toBe(201);

    const all = answered(await rawRequest(sandbox.url, { path: '/ledger' }));
    expect(all.status).toBe(200);
    expect(all.body.entries.map((e: { idempotency_key: string }) => e.idempotency_key)).toEqual([emailKey, smsKey]);
    expect(all.body.entries[0]).toEqual(sandbox.ledger.entries()[0]);

    const byKey = answered(await rawRequest(sandbox.url, { path: `/ledger?idempotency_key=${smsKey}` }));
    expect(byKey.body.entries).toHaveLength(1);
    expect(byKey.body.entries[0].channel).toBe('sms');

    const byChannel = answered(await rawRequest(sandbox.url, { path: '/ledger?channel=email' }));
    expect(byChannel.body.entries.map((e: { idempotency_key: string }) => e.idempotency_key)).toEqual([emailKey]);

    const badChannel = answered(await rawRequest(sandbox.url, { path: '/ledger?channel=fax' }));
    expect(badChannel.status).toBe(400);
    expect(badChannel.body.message).toContain('channel');

    expect(answered(await rawRequest(sandbox.url, { method: 'DELETE', path: '/ledger' })).status).toBe(200);
    expect(sandbox.ledger.entries()).toEqual([]);
    expect(answered(await rawRequest(sandbox.url, { path: '/ledger' })).body.entries).toEqual([]);
  });

  it('answers /healthz', async () => {
    expect(answered(await rawRequest(sandbox.url, { path: '/healthz' })).status).toBe(200);
  });
});

describe('API key enforcement', () => {
  it('sends need the bearer key; refused sends are not recorded', async () => {
    const guarded = await startSandbox({ apiKey: 'sk_test_123' });
    try {
      const none = answered(await sendEmail(guarded.url, freshKey()));
      const wrong = answered(await sendEmail(guarded.url, freshKey(), { headers: { authorization: 'Bearer sk_test_999' } }));
      expect(none.status).toBe(401);
      expect(wrong.status).toBe(401);
      expect(guarded.ledger.entries()).toEqual([]);

      const key = freshKey();
      const right = answered(await sendEmail(guarded.url, key, { headers: { authorization: 'Bearer sk_test_123' } }));
      expect(right.status).toBe(200);
      expect(guarded.ledger.countByKey(key)).toBe(1);
      // The control API stays open so tests can inspect a sandbox whatever key they use.
      expect(answered(await rawRequest(guarded.url, { path: '/ledger' })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
