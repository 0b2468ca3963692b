/** GET /v1/alerts (history, newest first, cursor) and GET /v1/alerts/active, on both drivers. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlertState } from '../../src/domain/index.js';
import { DRIVERS, T0, createHarness, type Harness } from '../helpers/harness.js';

const firing: AlertState = {
  rule: 'provider_failures',
  subject: 'sms-main',
  status: 'firing',
  since: T0,
  clearSince: null,
  line: '4 messages failed on sms-main in the last 15 minutes',
  value: 4,
  announced: 'firing',
  announcedAt: T0 + 1000,
  memory: null,
  version: 0,
};

describe.each(DRIVERS)('alerts API (%s)', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver });
  });
  afterEach(() => h.close());

  it('lists the history newest first, a page at a time, and refuses a cursor it did not issue', async () => {
    const row = {
      rule: 'provider_failures',
      subject: 'sms-main',
      targetKind: 'webhook' as const,
      target: 'https://hooks.example.com/…',
      providerAccount: null,
    };
    await h.store.alerts.recordSent([
      { ...row, sentAt: T0, kind: 'firing', outcome: 'sent', errorClass: null },
      { ...row, sentAt: T0 + 60_000, kind: 'resolved', outcome: 'failed', errorClass: 'http_503' },
      { ...row, sentAt: T0 + 120_000, kind: 'test', rule: null, subject: null, outcome: 'sent', errorClass: null },
    ]);
    const first = await h.get('/v1/alerts?limit=2');
    expect(first.status).toBe(200);
    expect(first.json.items.map((i: { kind: string }) => i.kind)).toEqual(['test', 'resolved']);
    expect(first.json.items[1]).toEqual({
      id: expect.any(Number),
      sent_at: new Date(T0 + 60_000).toISOString(),
      rule: 'provider_failures',
      subject: 'sms-main',
      kind: 'resolved',
      target_kind: 'webhook',
      target: 'https://hooks.example.com/…',
      provider_account: null,
      outcome: 'failed',
      error_class: 'http_503',
    });
    const second = await h.get(`/v1/alerts?limit=2&cursor=${first.json.next_cursor}`);
    expect(second.json.items.map((i: { kind: string }) => i.kind)).toEqual(['firing']);
    expect(second.json.next_cursor).toBeNull();

    const bad = await h.get('/v1/alerts?cursor=bm9wZQ');
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('invalid_cursor');
    expect((await h.get('/v1/alerts?limit=0')).json.code).toBe('validation_failed');
    const anonymous = await h.app.inject({ method: 'GET', url: '/v1/alerts' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('lists only what is firing now, saying whether it was announced', async () => {
    await h.store.alerts.commitStates(
      [
        firing,
        { ...firing, rule: 'deadline_misses', subject: 'all', line: '1 deadline miss in the last hour', value: 1, announced: null, announcedAt: null },
        { ...firing, rule: 'unknown_old', subject: 'all', status: 'clear', announced: 'resolved' },
      ],
      T0,
    );
    const active = await h.get('/v1/alerts/active');
    expect(active.status).toBe(200);
    expect(active.json.items).toEqual([
      {
        rule: 'deadline_misses',
        subject: 'all',
        since: new Date(T0).toISOString(),
        line: '1 deadline miss in the last hour',
        value: 1,
        announced: false,
        announced_at: null,
      },
      {
        rule: 'provider_failures',
        subject: 'sms-main',
        since: new Date(T0).toISOString(),
        line: firing.line,
        value: 4,
        announced: true,
        announced_at: new Date(T0 + 1000).toISOString(),
      },
    ]);
  });
});
