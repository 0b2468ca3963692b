/**
 * POST /v1/deliveries/cancel on both drivers: a preview that changes nothing, then exactly the
 * filtered pending deliveries cancelled (in batches, audited), the in-flight ones (`submitting`,
 * `unknown`) reported and left alone, and nothing cancelled ever sent (docs/scheduling.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

const marketing = (i: number) => ({
  recipient: { id: `fan-${i}`, phone: `+1415555${String(1000 + i).padStart(4, '0')}` },
  purpose: 'marketing',
  channels: ['sms'],
  content: { text: `Sale ${i}` },
});

describe.each(DRIVERS)('bulk cancel on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  it('previews, then cancels exactly the filtered deliveries and skips the in-flight ones', async () => {
    h = await createHarness({ driver });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await h.send(marketing(i))).json.deliveries[0].id as string);
    // Not selected: another purpose to the same recipients.
    const receipt = await h.send({
      recipient: { id: 'fan-0', phone: '+14155551000' },
      purpose: 'transactional',
      channels: ['sms'],
      content: { text: 'Receipt' },
    });
    // In flight: one claimed (`submitting`), one whose lease ran out (`unknown`).
    const claim = (workerId: string) => h.store.claimBatch({ providerAccount: 'sandbox-sms', workerId, now: h.clock.now(), leaseMs: 30_000, limit: 1 });
    const [lost] = await claim('doomed');
    h.clock.advance(31_000);
    await h.sweeper.runOnce();
    const [busy] = await claim('busy');
    expect([lost?.deliveryId, busy?.deliveryId].every((id) => ids.includes(id as string))).toBe(true);
    const states = async () => Object.fromEntries(await Promise.all(ids.map(async (id) => [id, (await h.get(`/v1/deliveries/${id}`)).json.state])));
    const before = await states();
    expect(before[lost!.deliveryId]).toBe('unknown');
    expect(before[busy!.deliveryId]).toBe('submitting');

    const filter = { purpose: 'marketing' };
    const preview = await h.post('/v1/deliveries/cancel', { filter, dry_run: true });
    expect(preview.status, JSON.stringify(preview.json)).toBe(200);
    const pending = ids.filter((id) => before[id] === 'ready' || before[id] === 'retryable');
    const inFlight = ids.filter((id) => before[id] === 'submitting' || before[id] === 'unknown');
    expect(inFlight).toHaveLength(2);
    expect(preview.json).toEqual({ dry_run: true, matched: 6, would_cancel: pending.length, in_flight: inFlight.length, ended: 0 });
    expect(await states()).toEqual(before);

    const real = await h.post('/v1/deliveries/cancel', { filter, note: 'sale called off' });
    expect(real.json).toEqual({ matched: 6, cancelled: pending.length, in_flight: inFlight.length, ended: 0, changed: 0 });
    for (const id of pending) {
      const d = (await h.get(`/v1/deliveries/${id}`)).json;
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'cancelled' });
      expect(d.actions).toEqual([expect.objectContaining({ action: 'cancel', detail: { bulk: true, filter, note: 'sale called off' } })]);
    }
    for (const id of inFlight) expect((await h.get(`/v1/deliveries/${id}`)).json.state).toBe(before[id]);
    expect((await h.get(`/v1/deliveries/${receipt.json.deliveries[0].id}`)).json.state).toBe('ready');

    // Nothing cancelled is ever sent; the receipt is.
    await h.worker.drain();
    for (const id of pending) expect(h.sandbox.ledger.countByKey((await h.get(`/v1/deliveries/${id}`)).json.idempotency_key)).toBe(0);
    expect((await h.get(`/v1/deliveries/${receipt.json.deliveries[0].id}`)).json.state).toBe('accepted');
    // A second run finds them ended.
    expect((await h.post('/v1/deliveries/cancel', { filter, dry_run: true })).json).toMatchObject({ would_cancel: 0, ended: pending.length });
  });

  it('selects by recipient and by creation time, and refuses an empty filter', async () => {
    h = await createHarness({ driver });
    const a = (await h.send(marketing(1))).json.deliveries[0].id as string;
    h.clock.advance(60_000);
    const b = (await h.send(marketing(2))).json.deliveries[0].id as string;
    const c = (await h.send({ ...marketing(3), recipient: { id: 'fan-1', phone: '+14155551003' } })).json.deliveries[0].id as string;
    const byRecipient = await h.post('/v1/deliveries/cancel', { filter: { recipient_id: 'fan-1' }, dry_run: true });
    expect(byRecipient.json).toMatchObject({ matched: 2, would_cancel: 2 });
    const since = new Date(h.clock.now() - 1_000).toISOString();
    const r = await h.post('/v1/deliveries/cancel', { filter: { created_after: since, state: 'ready' } });
    expect(r.json).toMatchObject({ matched: 2, cancelled: 2 });
    expect((await h.get(`/v1/deliveries/${a}`)).json.state).toBe('ready');
    for (const id of [b, c]) expect((await h.get(`/v1/deliveries/${id}`)).json.terminal_reason).toBe('cancelled');
    const empty = await h.post('/v1/deliveries/cancel', { filter: {} });
    expect(empty.status).toBe(400);
    expect(empty.json).toMatchObject({ code: 'validation_failed', errors: [{ field: 'filter' }] });
    const notPending = await h.post('/v1/deliveries/cancel', { filter: { state: 'unknown' } });
    expect(notPending.status).toBe(400);
    // Dates are ISO 8601 with a time and an offset, as GET /v1/deliveries takes them; anything Date.parse would guess at is refused.
    for (const bad of ['Tuesday', '12/01/2026', 'Dec 1, 2026 10:00', '2026-12-01', '2026-12-01T10:00:00', '2026-13-01T10:00:00Z']) {
      for (const field of ['created_after', 'created_before']) {
        const r = await h.post('/v1/deliveries/cancel', { filter: { [field]: bad }, dry_run: true });
        expect(r.status, `${field}=${bad}`).toBe(400);
        expect(r.json.code).toBe('validation_failed');
      }
    }
    expect((await h.get(`/v1/deliveries/${a}`)).json.state).toBe('ready');
  });
});
