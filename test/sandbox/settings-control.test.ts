/** The settings control API: `/behaviour` and `/callbacks/<channel>`, and the matching start options. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWebhookSecret } from '../../src/signing/standard-webhooks.js';
import { BehaviourSpecError, CallbackSpecError, defaultBehaviour, QuotaSpecError, startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { answered, rawRequest } from './raw-http.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let sandbox: SandboxHandle;

beforeEach(async () => {
  sandbox = await startSandbox({ seed: 8, behaviour: { bounce_probability: 0.25 } });
});

afterEach(async () => {
  await sandbox.close();
});

async function call(method: string, path: string, body?: unknown) {
  return answered(
    await rawRequest(sandbox.url, {
      method,
      path,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }),
    }),
  );
}

describe('/behaviour', () => {
  it('GET lists the whole behaviour; PUT changes only the fields given; DELETE returns to the start options', async () => {
    const initial = { ...defaultBehaviour(), bounce_probability: 0.25 };
    expect((await call('GET', '/behaviour')).body).toEqual({ behaviour: initial });
    const put = await call('PUT', '/behaviour', { duplicate_probability: 0.5, delay_ms: { min: 1, max: 9 }, emit_before_response: true });
    expect(put.body.behaviour).toEqual({
      ...initial,
      duplicate_probability: 0.5,
      delay_ms: { min: 1, max: 9 },
      emit_before_response: true,
    });
    expect(sandbox.behaviour.get().duplicate_probability).toBe(0.5);
    expect((await call('DELETE', '/behaviour')).body).toEqual({ behaviour: initial });
  });

  it.each([
    [{ duplicate_probability: 2 }, 'duplicate_probability'],
    [{ dedupe_by_key: 'yes' }, 'dedupe_by_key'],
    [{ delay_ms: { min: 5, max: 1 } }, 'delay_ms.max'],
    [{ delay_ms: 5 }, 'delay_ms'],
    [{ retry_delays_ms: [1, -1] }, 'retry_delays_ms'],
    [{ delivery_timeout_ms: 0 }, 'delivery_timeout_ms'],
    [{ colour: 'red' }, 'colour'],
    ['not json', 'body'],
    [[1], 'body'],
  ])('refuses %j naming %s, changing nothing', async (body, field) => {
    const before = sandbox.behaviour.get();
    const res = await call('PUT', '/behaviour', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_behaviour', field });
    expect(sandbox.behaviour.get()).toEqual(before);
  });

  it('bad start options throw before listening', async () => {
    await expect(startSandbox({ behaviour: { reorder_probability: -1 } })).rejects.toThrow(BehaviourSpecError);
    await expect(startSandbox({ quota: { sms: 0 } })).rejects.toThrow(QuotaSpecError);
    await expect(startSandbox({ callbacks: { sms: { url: 'ftp://x' } } })).rejects.toThrow(CallbackSpecError);
  });
});

describe('/callbacks/<channel>', () => {
  it('PUT registers a URL and secret, GET shows it, DELETE removes it', async () => {
    const put = await call('PUT', '/callbacks/sms', { url: 'http://127.0.0.1:9/hook', secret: SECRET });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ channel: 'sms', url: 'http://127.0.0.1:9/hook', secret: SECRET });
    expect((await call('GET', '/callbacks/sms')).body).toEqual(put.body);
    const all = await call('GET', '/callbacks');
    expect(all.body).toEqual({
      callbacks: { sms: { url: 'http://127.0.0.1:9/hook', secret: SECRET } },
      counters: { emitted: 0, duplicates: 0, retried: 0, acknowledged: 0, failed: 0, dropped: 0 },
    });
    expect((await call('DELETE', '/callbacks/sms')).body).toEqual({ callbacks: {} });
    expect((await call('GET', '/callbacks/sms')).status).toBe(404);
  });

  it('generates a secret when none is given, like a provider dashboard', async () => {
    const put = await call('PUT', '/callbacks/email', { url: 'https://example.test/hook' });
    expect(isWebhookSecret(put.body.secret)).toBe(true);
    expect(sandbox.callbacks.registrations().email?.secret).toBe(put.body.secret);
  });

  it('the start option registers too', async () => {
    const target = await startSandbox({ callbacks: { push: { url: 'http://127.0.0.1:9/' } } });
    try {
      expect(target.callbacks.registrations()).toEqual({ push: { url: 'http://127.0.0.1:9/', secret: expect.stringMatching(/^whsec_/) } });
    } finally {
      await target.close();
    }
  });

  it.each([
    [{ url: 'ftp://example.test/', secret: SECRET }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ secret: SECRET }, 'url'],
    [{ url: 'http://127.0.0.1:9/', secret: 'whsec_short' }, 'secret'],
    [{ url: 'http://127.0.0.1:9/', secret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, 'secret'],
    [{ url: 'http://127.0.0.1:9/', events: ['sent'] }, 'events'],
  ])('refuses %j naming %s', async (body, field) => {
    const res = await call('PUT', '/callbacks/sms', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_callback', field });
    expect(sandbox.callbacks.registrations()).toEqual({});
  });

  it('an unknown channel is not a control path (404), and other methods are 405', async () => {
    expect((await call('PUT', '/callbacks/fax', { url: 'http://127.0.0.1:9/' })).status).toBe(404);
    expect((await call('POST', '/callbacks/sms', { url: 'http://127.0.0.1:9/' })).status).toBe(405);
    expect((await call('POST', '/behaviour', {})).status).toBe(405);
  });
});
