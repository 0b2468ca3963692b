/**
 * Failures the caller does not see are still logged, once, with ids and no personal data: an
 * unexpected error answered 500 reaches the process log even with request logging off (the
 * default of `herald start`), and a clean-up that fails after a refused request (the
 * Idempotency-Key not freed, an inline campaign audience not deleted) leaves a warning line
 * instead of vanishing in a `.catch(() => {})`.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { ReplayService } from '../../src/delivery/replay-service.js';
import { IntakeService } from '../../src/intake/intake-service.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createHarness, otpBody, type Harness } from '../helpers/harness.js';

const PHONE = '+14155550177';

function logSink(): { lines: () => Array<Record<string, unknown>>; raw: string[]; stream: Writable } {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { raw, stream, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('failures nobody else sees are logged', () => {
  let h: Harness | null = null;
  afterEach(async () => {
    vi.restoreAllMocks();
    await h?.close();
    h = null;
  });

  it('an unexpected error answered 500 is logged with request logging off, and requests themselves are not', async () => {
    h = await createHarness();
    const sink = logSink();
    const logger = createLogger('info', sink.stream);
    const app = await buildApp({
      store: h.store,
      intake: new IntakeService({ store: h.store, accounts: h.config.provider_accounts, clock: h.clock, logger }),
      replay: new ReplayService({ store: h.store, clock: h.clock }),
      accounts: h.config.provider_accounts,
      clock: h.clock,
      logger,
      logRequests: false,
    });
    try {
      vi.spyOn(h.store.observability, 'systemState').mockRejectedValue(new Error('disk on fire'));
      const r = await app.inject({ method: 'GET', url: '/v1/stats', headers: { authorization: `Bearer ${h.apiKey}` } });
      expect(r.statusCode).toBe(500);
      expect(r.json()).toMatchObject({ code: 'internal_error' });
      const errors = sink.lines().filter((l) => l.msg === 'unhandled error');
      expect(errors).toHaveLength(1);
      expect((errors[0]!.err as { message: string }).message).toBe('disk on fire');
      expect(sink.lines().filter((l) => l.msg === 'incoming request' || l.msg === 'request completed')).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('a key that cannot be freed after a failed commit is logged with the tenant, never the key or the phone', async () => {
    const sink = logSink();
    h = await createHarness({ logger: createLogger('info', sink.stream) });
    vi.spyOn(h.store, 'createNotification').mockRejectedValue(new Error('commit failed'));
    vi.spyOn(h.store, 'releaseIdempotencyKey').mockRejectedValue(new Error('release failed'));
    const key = 'idem-key-canary-4411';
    const r = await h.send(otpBody({ recipient: { id: 'user-1', phone: PHONE } }), { 'idempotency-key': key });
    expect(r.status).toBe(500);
    const warnings = sink.lines().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('cannot free an Idempotency-Key'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ tenantId: h.tenantId, err: { message: 'release failed' } });
    for (const line of sink.raw) {
      expect(line).not.toContain(key);
      expect(line).not.toContain(PHONE.slice(1));
    }
  });

  it('an inline campaign audience that cannot be deleted after a refusal is logged with its id', async () => {
    const sink = logSink();
    h = await createHarness({ logger: createLogger('info', sink.stream) });
    vi.spyOn(h.store.campaigns, 'createCampaign').mockRejectedValue(new Error('write failed'));
    vi.spyOn(h.store.campaigns, 'deleteAudience').mockRejectedValue(new Error('delete failed'));
    const r = await h.app.inject({
      method: 'POST',
      url: '/v1/campaigns',
      headers: { authorization: `Bearer ${h.apiKey}` },
      payload: {
        channel: 'sms',
        purpose: 'marketing',
        content: { text: 'Spring sale' },
        deadline_at: new Date(h.clock.now() + 3_600_000).toISOString(),
        audience: { recipients: [{ id: 'r1', phone: PHONE }] },
      },
    });
    expect(r.statusCode).toBe(500);
    const warnings = sink.lines().filter((l) => l.msg === 'cannot delete the inline audience of a refused campaign');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ audienceId: expect.stringMatching(/^aud/), err: { message: 'delete failed' } });
    for (const line of sink.raw) expect(line).not.toContain(PHONE.slice(1));
  });
});
