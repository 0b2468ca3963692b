/**
 * Idempotency-Key on POST /v1/notifications (draft-ietf-httpapi-idempotency-key-header), for
 * every intake fault that matters: replay, mismatch, concurrency, crashes on either side of
 * the commit, key scoping, retention and header syntax.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH, parseIdempotencyKey } from '../../src/http/idempotency-header.js';
import { createHarness, otpBody, T0, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(opts: Parameters<typeof createHarness>[0] = {}): Promise<Harness> {
  h = await createHarness(opts);
  return h;
}

const DAY_MS = 24 * 3600_000;

/** POST with a raw JSON string (byte-exact) and optional extra headers. */
function postRaw(hh: Harness, payload: string, headers: Record<string, string | string[]> = {}, apiKey = hh.apiKey): Promise<LightMyRequestResponse> {
  return hh.app.inject({
    method: 'POST',
    url: '/v1/notifications',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    payload,
  });
}

async function totalDeliveries(hh: Harness): Promise<number> {
  return Object.values(await hh.store.countByState()).reduce((a, b) => a + b, 0);
}

async function notificationIds(hh: Harness): Promise<string[]> {
  const list = await hh.get('/v1/deliveries?limit=200');
  return [...new Set<string>(list.json.items.map((d: { notification_id: string }) => d.notification_id))];
}

/** A gate the beforeCommit hook waits on: `entered` resolves when a request reaches it. */
function gate() {
  let release!: () => void;
  let entered!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const reached = new Promise<void>((r) => (entered = r));
  return { release, reached, released, entered };
}

describe('replay (items 1 and 4)', () => {
  it('same key + same body after completion → identical status and body, replay header, one notification', async () => {
    const hh = await harness();
    const first = await hh.send(otpBody(), { 'idempotency-key': 'k1' });
    expect(first.status).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    for (let i = 0; i < 3; i++) {
      hh.clock.advance(60_000);
      const again = await hh.send(otpBody(), { 'idempotency-key': 'k1' });
      expect(again.status).toBe(202);
      expect(again.json).toEqual(first.json);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers['content-type']).toMatch(/^application\/json/);
    }
    expect(await totalDeliveries(hh)).toBe(1);
    expect(await notificationIds(hh)).toEqual([first.json.id]);
  });

  it('the same body with another key order and whitespace is the same request (canonical-JSON fingerprint)', async () => {
    const hh = await harness();
    const compact =
      '{"recipient":{"id":"user-1","phone":"+14155550123"},"purpose":"otp","channels":["sms"],"content":{"text":"Your code is 123456"},"ttl_seconds":300}';
    const reordered = `
      {
        "ttl_seconds" : 300,
        "content"     : { "text" : "Your code is 123456" },
        "channels"    : [ "sms" ],
        "purpose"     : "otp",
        "recipient"   : { "phone" : "+14155550123", "id" : "user-1" }
      }`;
    const first = await postRaw(hh, compact, { 'idempotency-key': 'k-order' });
    expect(first.statusCode).toBe(202);
    const second = await postRaw(hh, reordered, { 'idempotency-key': 'k-order' });
    expect(second.statusCode).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect(await totalDeliveries(hh)).toBe(1);
  });

  it('a crash after commit, before the response: the retry gets the stored result, no second notification', async () => {
    const hh = await harness();
    // The store commits, then the process "dies" before answering: the client sees a 500.
    const createNotification = hh.store.createNotification.bind(hh.store);
    let crashes = 1;
    hh.store.createNotification = async (...args) => {
      const created = await createNotification(...args);
      if (crashes-- > 0) throw new Error('process died after commit');
      return created;
    };
    const lost = await hh.send(otpBody(), { 'idempotency-key': 'k-after' });
    expect(lost.status).toBe(500);
    expect(lost.json.code).toBe('internal_error');
    expect(await totalDeliveries(hh)).toBe(1);

    const retry = await hh.send(otpBody(), { 'idempotency-key': 'k-after' });
    expect(retry.status).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await totalDeliveries(hh)).toBe(1);
    expect(await notificationIds(hh)).toEqual([retry.json.id]);
  });
});

describe('mismatch (item 2)', () => {
  it('same key, different body → 422 idempotency_key_mismatch and nothing stored', async () => {
    const hh = await harness();
    const first = await hh.send(otpBody(), { 'idempotency-key': 'k-mm' });
    expect(first.status).toBe(202);
    const variants = [
      otpBody({ ttl_seconds: 301 }),
      otpBody({ content: { text: 'Your code is 654321', subject: 'Your code' } }),
      // Whitespace inside a value is a different value.
      otpBody({ content: { text: 'Your code is  123456', subject: 'Your code' } }),
      otpBody({ channels: ['sms', 'email'] }),
      otpBody({ metadata: {} }),
    ];
    for (const body of variants) {
      const r = await hh.send(body, { 'idempotency-key': 'k-mm' });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(r.json).toMatchObject({ code: 'idempotency_key_mismatch', status: 422 });
      expect(r.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await totalDeliveries(hh)).toBe(1);
    // The key still replays its own request.
    const again = await hh.send(otpBody(), { 'idempotency-key': 'k-mm' });
    expect(again.json).toEqual(first.json);
  });

  it('a different body while the first is still in flight is also a mismatch, not a 409', async () => {
    const g = gate();
    let calls = 0;
    const hh = await harness({
      intake: {
        beforeCommit: async () => {
          if (calls++ === 0) {
            g.entered();
            await g.released;
          }
        },
      },
    });
    const first = hh.send(otpBody(), { 'idempotency-key': 'k-fly' });
    await g.reached;
    const other = await hh.send(otpBody({ ttl_seconds: 60 }), { 'idempotency-key': 'k-fly' });
    expect(other.status).toBe(422);
    expect(other.json.code).toBe('idempotency_key_mismatch');
    g.release();
    expect((await first).status).toBe(202);
    expect(await totalDeliveries(hh)).toBe(1);
  });
});

describe('concurrency (item 3)', () => {
  it('20 duplicates while the first is held open → all 409 idempotency_key_in_use; then exactly one notification', async () => {
    const g = gate();
    let calls = 0;
    const hh = await harness({
      intake: {
        beforeCommit: async () => {
          calls++;
          if (calls === 1) {
            g.entered();
            await g.released;
          }
        },
      },
    });
    const first = hh.send(otpBody(), { 'idempotency-key': 'k-busy' });
    await g.reached;

    const losers = await Promise.all(Array.from({ length: 20 }, () => hh.send(otpBody(), { 'idempotency-key': 'k-busy' })));
    for (const r of losers) {
      expect(r.status).toBe(409);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(r.json).toMatchObject({ code: 'idempotency_key_in_use', status: 409 });
      expect(r.headers['idempotent-replayed']).toBeUndefined();
    }
    // No loser got as far as the commit, and nothing is stored while the first is open.
    expect(calls).toBe(1);
    expect(await totalDeliveries(hh)).toBe(0);

    g.release();
    const won = await first;
    expect(won.status).toBe(202);
    expect(await totalDeliveries(hh)).toBe(1);
    expect(await notificationIds(hh)).toEqual([won.json.id]);

    // A loser retrying after the 409 now gets the winner's answer.
    const retry = await hh.send(otpBody(), { 'idempotency-key': 'k-busy' });
    expect(retry.status).toBe(202);
    expect(retry.json).toEqual(won.json);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('the reaper never deletes an in-flight key (item 8)', async () => {
    const g = gate();
    let calls = 0;
    const hh = await harness({
      intake: {
        // Retention shorter than the 60 s lock: the reaper runs past retention while the lock is live.
        idempotencyRetentionMs: 1_000,
        beforeCommit: async () => {
          if (calls++ === 0) {
            g.entered();
            await g.released;
          }
        },
      },
    });
    const first = hh.send(otpBody(), { 'idempotency-key': 'k-prune' });
    await g.reached;
    expect(await hh.store.pruneIdempotencyKeys(T0 + 30_000)).toBe(0);
    expect((await hh.send(otpBody(), { 'idempotency-key': 'k-prune' })).status).toBe(409);
    g.release();
    expect((await first).status).toBe(202);
  });
});

describe('crash before commit (item 5)', () => {
  it('→ 500; the retry with the same key is processed normally and the key is not left locked', async () => {
    let failures = 1;
    const hh = await harness({
      intake: {
        beforeCommit: async () => {
          if (failures-- > 0) throw new Error('process died before commit');
        },
      },
    });
    const crashed = await hh.send(otpBody(), { 'idempotency-key': 'k-crash' });
    expect(crashed.status).toBe(500);
    expect(crashed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(crashed.json.code).toBe('internal_error');
    expect(JSON.stringify(crashed.json)).not.toContain('process died');
    expect(await totalDeliveries(hh)).toBe(0);

    // Immediately, not after the 60 s lock: the failed request released its reservation.
    const retry = await hh.send(otpBody(), { 'idempotency-key': 'k-crash' });
    expect(retry.status).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await totalDeliveries(hh)).toBe(1);
  });
});

describe('a holder that never commits (items 5 and 8)', () => {
  it('its lock runs out after 60 s: a retry takes the key over, and the stale holder cannot complete it', async () => {
    const g = gate();
    let calls = 0;
    const hh = await harness({
      intake: {
        beforeCommit: async () => {
          if (calls++ === 0) {
            g.entered();
            await g.released;
          }
        },
      },
    });
    const stale = hh.send(otpBody(), { 'idempotency-key': 'k-stuck' });
    await g.reached;
    hh.clock.advance(59_999);
    expect((await hh.send(otpBody(), { 'idempotency-key': 'k-stuck' })).status).toBe(409);

    hh.clock.advance(2);
    const retry = await hh.send(otpBody(), { 'idempotency-key': 'k-stuck' });
    expect(retry.status).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();

    // The presumed-dead holder wakes up: its transaction must not commit a second notification.
    g.release();
    const late = await stale;
    expect(late.status).toBe(409);
    expect(late.json.code).toBe('idempotency_key_in_use');
    expect(await totalDeliveries(hh)).toBe(1);
    expect(await notificationIds(hh)).toEqual([retry.json.id]);
    const replay = await hh.send(otpBody(), { 'idempotency-key': 'k-stuck' });
    expect(replay.json).toEqual(retry.json);
  });
});

describe('refusals before the key is taken (item 6)', () => {
  it('a 400 does not poison the key: the corrected request with the same key is accepted', async () => {
    const hh = await harness();
    const bad = [
      otpBody({ recipient: { id: 'user-1', phone: '4155550123' } }), // fails the E.164 check in intake
      otpBody({ nickname: 'x' }), // fails the schema
      otpBody({ group: { key: 'g', generation: '2' } }), // fails the schema (no coercion)
    ];
    for (const body of bad) {
      const r = await hh.send(body, { 'idempotency-key': 'k-fix' });
      expect(r.status).toBe(400);
      expect(r.json.code).toBe('validation_failed');
    }
    const fixed = await hh.send(otpBody(), { 'idempotency-key': 'k-fix' });
    expect(fixed.status).toBe(202);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect(await totalDeliveries(hh)).toBe(1);
  });

  it('a 422 template_unknown does not poison the key either', async () => {
    const hh = await harness();
    const { content: _content, ...noContent } = otpBody();
    const r = await hh.send({ ...noContent, template: { id: 'otp' } }, { 'idempotency-key': 'k-tpl' });
    expect(r.status).toBe(422);
    expect((await hh.send(otpBody(), { 'idempotency-key': 'k-tpl' })).status).toBe(202);
  });
});

describe('key scope (items 7 and 10)', () => {
  it('the same key from two tenants gives independent results, no cross-replay', async () => {
    const hh = await harness();
    await hh.store.ensureTenant({ id: 'acme', name: 'Acme' }, T0);
    const acmeKey = generateApiKey();
    await hh.store.createApiKey({ id: 'key_acme', tenantId: 'acme', keyHash: hashApiKey(acmeKey), label: 'acme', now: T0 });
    // Both tenants send through the same accounts (docs/tenants.md: an assigned account is its tenants' only).
    for (const a of hh.config.provider_accounts) for (const t of ['default', 'acme']) await hh.store.tenants.assignAccount(t, a.id, T0);

    const body = JSON.stringify(otpBody());
    const mine = await postRaw(hh, body, { 'idempotency-key': 'shared' });
    const theirs = await postRaw(hh, body, { 'idempotency-key': 'shared' }, acmeKey);
    expect(mine.statusCode).toBe(202);
    expect(theirs.statusCode).toBe(202);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().id).not.toBe(mine.json().id);
    expect(await totalDeliveries(hh)).toBe(2);

    // A different body under the same key in the other tenant is not a mismatch either.
    const other = await postRaw(hh, JSON.stringify(otpBody({ ttl_seconds: 60 })), { 'idempotency-key': 'shared-2' }, acmeKey);
    expect(other.statusCode).toBe(202);
    expect((await postRaw(hh, body, { 'idempotency-key': 'shared-2' })).statusCode).toBe(202);

    // Each tenant's repeat replays its own answer.
    const myAgain = await postRaw(hh, body, { 'idempotency-key': 'shared' });
    expect(myAgain.json()).toEqual(mine.json());
    const theirAgain = await postRaw(hh, body, { 'idempotency-key': 'shared' }, acmeKey);
    expect(theirAgain.json()).toEqual(theirs.json());
  });

  it('two different keys with identical bodies → two notifications', async () => {
    const hh = await harness();
    const a = await hh.send(otpBody(), { 'idempotency-key': 'key-a' });
    const b = await hh.send(otpBody(), { 'idempotency-key': 'key-b' });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json.id).not.toBe(a.json.id);
    expect((await notificationIds(hh)).sort()).toEqual([a.json.id, b.json.id].sort());
  });

  it('no key at all: every request is new', async () => {
    const hh = await harness();
    expect((await hh.send(otpBody())).status).toBe(202);
    expect((await hh.send(otpBody())).status).toBe(202);
    expect(await totalDeliveries(hh)).toBe(2);
  });
});

describe('retention (item 8)', () => {
  it('a key replays for 24 h; past retention the same key creates a new notification', async () => {
    const hh = await harness();
    const first = await hh.send(otpBody(), { 'idempotency-key': 'k-ret' });
    expect(first.status).toBe(202);

    hh.clock.advance(DAY_MS - 1);
    const inside = await hh.send(otpBody(), { 'idempotency-key': 'k-ret' });
    expect(inside.headers['idempotent-replayed']).toBe('true');
    expect(inside.json.id).toBe(first.json.id);

    hh.clock.set(T0 + DAY_MS + 1);
    const after = await hh.send(otpBody(), { 'idempotency-key': 'k-ret' });
    expect(after.status).toBe(202);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(after.json.id).not.toBe(first.json.id);
    expect(await totalDeliveries(hh)).toBe(2);

    // The renewed key now replays the new answer.
    const replay = await hh.send(otpBody(), { 'idempotency-key': 'k-ret' });
    expect(replay.json.id).toBe(after.json.id);
  });

  it('past retention a different body under the old key is a new request, not a mismatch', async () => {
    const hh = await harness();
    expect((await hh.send(otpBody(), { 'idempotency-key': 'k-ret2' })).status).toBe(202);
    hh.clock.advance(DAY_MS + 1);
    const r = await hh.send(otpBody({ ttl_seconds: 60 }), { 'idempotency-key': 'k-ret2' });
    expect(r.status).toBe(202);
    expect(await totalDeliveries(hh)).toBe(2);
  });
});

describe('errors that ran to a definite answer replay too', () => {
  it('duplicate_challenge 409 (same group and generation under another key) replays the same 409 body', async () => {
    const hh = await harness();
    const body = otpBody({ group: { key: 'login-42', generation: 3 } });
    const first = await hh.send(body, { 'idempotency-key': 'challenge-a' });
    expect(first.status).toBe(202);

    const dup = await hh.send(body, { 'idempotency-key': 'challenge-b' });
    expect(dup.status).toBe(409);
    expect(dup.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(dup.json).toMatchObject({ code: 'duplicate_challenge', status: 409 });
    expect(dup.json.errors).toEqual([{ field: 'group.generation', message: expect.any(String) }]);

    const dupAgain = await hh.send(body, { 'idempotency-key': 'challenge-b' });
    expect(dupAgain.status).toBe(409);
    expect(dupAgain.headers['idempotent-replayed']).toBe('true');
    expect(dupAgain.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(dupAgain.json).toEqual(dup.json);

    // Without a key the refusal is the same, and a higher generation is accepted.
    expect((await hh.send(body)).json.code).toBe('duplicate_challenge');
    const next = await hh.send(otpBody({ group: { key: 'login-42', generation: 4 } }), { 'idempotency-key': 'challenge-c' });
    expect(next.status).toBe(202);
    expect(await totalDeliveries(hh)).toBe(2);
  });
});

describe('header syntax (item 9)', () => {
  it('quoted "abc" and bare abc are the same key', async () => {
    const hh = await harness();
    const quoted = await hh.send(otpBody(), { 'idempotency-key': '"abc"' });
    const bare = await hh.send(otpBody(), { 'idempotency-key': 'abc' });
    expect(quoted.status).toBe(202);
    expect(bare.headers['idempotent-replayed']).toBe('true');
    expect(bare.json).toEqual(quoted.json);
    expect(await totalDeliveries(hh)).toBe(1);
  });

  it('255 characters are accepted; 256 are 400', async () => {
    const hh = await harness();
    expect(MAX_IDEMPOTENCY_KEY_LENGTH).toBe(255);
    expect((await hh.send(otpBody(), { 'idempotency-key': 'k'.repeat(255) })).status).toBe(202);
    expect((await hh.send(otpBody(), { 'idempotency-key': `"${'q'.repeat(255)}"` })).status).toBe(202);
    for (const value of ['k'.repeat(256), `"${'q'.repeat(256)}"`]) {
      const r = await hh.send(otpBody(), { 'idempotency-key': value });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ code: 'idempotency_key_invalid', errors: [{ field: 'Idempotency-Key' }] });
    }
    expect(await totalDeliveries(hh)).toBe(2);
  });

  it.each([
    ['empty quoted string', '""'],
    ['empty bare value', ''],
    ['only spaces', '   '],
    ['comma-joined list', 'abc, def'],
    ['comma-joined quoted list', '"abc", "def"'],
    ['non-ASCII', 'clé-1'],
    ['non-ASCII inside quotes', '"clé-1"'],
    ['a space inside a bare token', 'abc def'],
    ['an unterminated quote', '"abc'],
  ])('%s → 400 idempotency_key_invalid, nothing stored', async (_name, value) => {
    const hh = await harness();
    const r = await postRaw(hh, JSON.stringify(otpBody()), { 'idempotency-key': value });
    expect(r.statusCode).toBe(400);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.json()).toMatchObject({ code: 'idempotency_key_invalid', status: 400, errors: [{ field: 'Idempotency-Key' }] });
    expect(await totalDeliveries(hh)).toBe(0);
  });

  it('two Idempotency-Key fields → 400, nothing stored', async () => {
    const hh = await harness();
    const r = await postRaw(hh, JSON.stringify(otpBody()), { 'idempotency-key': ['abc', 'abc'] });
    expect(r.statusCode).toBe(400);
    expect(r.json().code).toBe('idempotency_key_invalid');
    expect(await totalDeliveries(hh)).toBe(0);
  });

  describe('parseIdempotencyKey on raw header lists', () => {
    const parse = (...pairs: string[]) => parseIdempotencyKey(pairs);
    const rejects = (...pairs: string[]) => expect(() => parse(...pairs)).toThrow(expect.objectContaining({ code: 'idempotency_key_invalid' }));

    it('absent → null; other headers are ignored', () => {
      expect(parse()).toBeNull();
      expect(parse('Content-Type', 'application/json', 'Authorization', 'Bearer x')).toBeNull();
    });

    it('quoted and bare forms give the same key; the header name is case-insensitive', () => {
      expect(parse('Idempotency-Key', '"abc"')).toBe('abc');
      expect(parse('idempotency-key', 'abc')).toBe('abc');
      expect(parse('IDEMPOTENCY-KEY', ' abc ')).toBe('abc');
      expect(parse('Idempotency-Key', '"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe('8e03978e-40d5-43e8-bc93-6894a57f9324');
    });

    it('sf-string escapes and spaces are allowed inside quotes', () => {
      expect(parse('Idempotency-Key', '"a \\"b\\" \\\\ c"')).toBe('a "b" \\ c');
    });

    it('two fields are refused, even when they carry the same value', () => {
      rejects('Idempotency-Key', 'abc', 'Idempotency-Key', 'abc');
      rejects('Idempotency-Key', '"abc"', 'idempotency-key', '"def"');
    });

    it('comma-joined values are refused', () => {
      rejects('Idempotency-Key', 'abc,def');
      rejects('Idempotency-Key', 'abc, def');
      rejects('Idempotency-Key', '"abc", "def"');
    });

    it('255 characters are the limit, counted after unquoting', () => {
      expect(parse('Idempotency-Key', 'a'.repeat(255))).toHaveLength(255);
      expect(parse('Idempotency-Key', `"${'a'.repeat(255)}"`)).toHaveLength(255);
      rejects('Idempotency-Key', 'a'.repeat(256));
      rejects('Idempotency-Key', `"${'a'.repeat(256)}"`);
    });

    it('empty, non-ASCII, control characters and CR/LF are refused', () => {
      rejects('Idempotency-Key', '""');
      rejects('Idempotency-Key', '');
      rejects('Idempotency-Key', 'clé');
      rejects('Idempotency-Key', '"clé"');
      rejects('Idempotency-Key', '"a\tb"');
      rejects('Idempotency-Key', 'a\r\nb');
      rejects('Idempotency-Key', '"a\r\nb"');
      rejects('Idempotency-Key', '"a\\nb"'); // RFC 8941 allows only \" and \\ escapes
      rejects('Idempotency-Key', 'a\u0000b');
    });
  });
});
