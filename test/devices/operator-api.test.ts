/**
 * The operator's routes for phones: each device's health, its messages by state, and the two
 * retries (one message; every failed message of a device), with their refusals.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PhoneSim } from '../../src/devices/phone-sim.js';
import type { Harness } from '../helpers/harness.js';
import { ACCOUNT, deliveryOf, gatewayHarness, messageIdOf, MINUTE, phoneFor, sendSms, until } from './gateway-harness.js';

const RADIO_OFF = 'Send result: RESULT_ERROR_RADIO_OFF (Failed because radio was explicitly turned off)';

describe('/v1/devices', () => {
  let h: Harness;
  let sim: PhoneSim;
  beforeEach(async () => {
    h = await gatewayHarness('sqlite');
    sim = phoneFor(h);
    await sim.start();
  });
  afterEach(async () => {
    await sim.close();
    await h.close();
  });

  /** A message the phone failed before sending, its report recorded; applied too unless `applied` is false. */
  async function failOne(purpose = 'otp', applied = true): Promise<{ id: string; messageId: string }> {
    sim.script({ kind: 'fail', error: RADIO_OFF });
    const id = await sendSms(h, { purpose });
    await h.worker.runOnce(ACCOUNT);
    const messageId = await messageIdOf(h, id);
    await until(sim, async () => expect((await h.store.devices.getOfferByMessageId(messageId))?.phoneState).toBe('Failed'));
    if (applied) await h.devices!.reports.runOnce();
    return { id, messageId };
  }

  it('shows each device’s health: online, last seen, away since, queue depth, failures in 24 h, SIMs, app version', async () => {
    await failOne();
    sim.script({ kind: 'hold' });
    await sendSms(h);
    await h.worker.runOnce(ACCOUNT);
    await sim.idle();
    const id = sim.registration!.id;
    const one = await h.get(`/v1/devices/${id}`);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({
      id,
      name: 'Herald/phone-sim',
      provider_account: ACCOUNT,
      online: true,
      away_since: null,
      queue_depth: 1,
      failures_24h: 1,
      app_version: '1.40.0-sim',
      sweep_pending: false,
    });
    expect(one.json.sim_cards).toEqual([{ slotIndex: 0, simNumber: 1, phoneNumber: '********0000', carrierName: '****', iccid: null }]);
    await sim.goOffline();
    // The server notices the closed stream a moment later.
    await vi.waitFor(() => expect(h.devices!.hub.connected(id)).toBe(0), { timeout: 5_000, interval: 10 });
    const lastSeen = (await h.store.devices.getDevice(id))!.lastSeenAt;
    h.clock.advance(3 * MINUTE);
    expect((await h.get(`/v1/devices/${id}`)).json).toMatchObject({
      online: false,
      connections: 0,
      away_since: new Date(lastSeen).toISOString(),
      last_seen_at: new Date(lastSeen).toISOString(),
    });
    expect((await h.get('/v1/devices')).json.items).toHaveLength(1);
    expect((await h.get('/v1/devices/nope')).status).toBe(404);
  });

  it('lists a device’s messages by Herald’s state or the phone’s, newest first, with a cursor', async () => {
    const failed = await failOne();
    const ok = await sendSms(h);
    await h.worker.runOnce(ACCOUNT);
    const okId = await messageIdOf(h, ok);
    await until(sim, () => expect(sim.message(okId)?.state).toBe('Delivered'));
    const id = sim.registration!.id;
    const byPhone = await h.get(`/v1/devices/${id}/messages?phone_state=Failed`);
    expect(byPhone.json.items.map((m: any) => m.message_id)).toEqual([failed.messageId]);
    expect(byPhone.json.items[0]).toMatchObject({
      state: 'reported',
      phone_state: 'Failed',
      phone_error: 'RESULT_ERROR_RADIO_OFF',
      sent: false,
      delivery_state: 'retryable',
      current: true,
      purpose: 'otp',
    });
    const page1 = await h.get(`/v1/devices/${id}/messages?limit=1`);
    expect(page1.json.items.map((m: any) => m.message_id)).toEqual([okId]);
    const page2 = await h.get(`/v1/devices/${id}/messages?limit=1&cursor=${page1.json.next_cursor}`);
    expect(page2.json).toMatchObject({ items: [expect.objectContaining({ message_id: failed.messageId })], next_cursor: null });
    expect((await h.get(`/v1/devices/${id}/messages?state=nonsense`)).status).toBe(400);
    expect((await h.get(`/v1/devices/${id}/messages/${okId}`)).json).toMatchObject({ message_id: okId, phone_state: 'Delivered' });
  });

  it('one row per message with current=true, by its delivery state; a single-message retry is in the device’s actions', async () => {
    const failed = await failOne('transactional');
    const id = sim.registration!.id;
    // The operator retries the message through the deliveries API (the dashboard's row button).
    const d = (await h.get(`/v1/notifications/${failed.id}`)).json.deliveries[0];
    expect((await h.post(`/v1/deliveries/${d.id}/retry`, {})).status).toBe(202);
    await h.worker.runOnce(ACCOUNT);
    const next = await messageIdOf(h, failed.id);
    await until(sim, () => expect(sim.message(next)?.state).toBe('Delivered'));
    await h.devices!.reports.runOnce();
    // Every offer: the failed one and the delivered retry.
    expect((await h.get(`/v1/devices/${id}/messages`)).json.items).toHaveLength(2);
    // One row per message: its current offer, delivered; the failed offer stays in its timeline.
    const current = (await h.get(`/v1/devices/${id}/messages?current=true`)).json.items;
    expect(current).toEqual([
      expect.objectContaining({ message_id: next, delivery_id: d.id, delivery_state: 'accepted', downstream_status: 'delivered', provider_account: ACCOUNT }),
    ]);
    const actions = (await h.get(`/v1/devices/${id}`)).json.actions;
    expect(actions).toEqual([expect.objectContaining({ action: 'retry', delivery_id: d.id })]);
  });

  it('retries one failed message with a new offer, and re-offers an unknown one under its id', async () => {
    const failed = await failOne('transactional');
    const id = sim.registration!.id;
    const r = await h.post(`/v1/devices/${id}/messages/${failed.messageId}/retry`);
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({ action: 'retried', message: { message_id: failed.messageId, delivery_state: 'ready' } });
    await h.worker.runOnce(ACCOUNT);
    const next = await messageIdOf(h, failed.id);
    expect(next).not.toBe(failed.messageId);
    await until(sim, () => expect(sim.message(next)?.state).toBe('Delivered'));
    // Now an old offer: not the delivery's current one.
    expect((await h.post(`/v1/devices/${id}/messages/${failed.messageId}/retry`)).status).toBe(409);

    sim.script({ kind: 'lose_reports' });
    const lost = await sendSms(h);
    await h.worker.runOnce(ACCOUNT);
    const lostId = await messageIdOf(h, lost);
    await until(sim, () => expect(sim.message(lostId)?.state).toBe('Delivered'));
    const re = await h.post(`/v1/devices/${id}/messages/${lostId}/retry`);
    expect(re).toMatchObject({ status: 202, json: { action: 'reoffered' } });
    await until(sim, async () => expect((await h.store.devices.getOfferByMessageId(lostId))?.state).toBe('reported'));
    expect(sim.sendCount(lostId)).toBe(1);
    await h.devices!.reports.runOnce();
    expect(await deliveryOf(h, lost)).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });
    // Delivered: nothing to retry.
    expect((await h.post(`/v1/devices/${id}/messages/${lostId}/retry`)).status).toBe(409);
    expect((await h.post(`/v1/devices/${id}/messages/not-a-message/retry`)).status).toBe(404);
  });

  it('POST /v1/devices/:id/retry-failed retries every failed message now and records it as a sweep', async () => {
    const a = await failOne();
    const b = await failOne('transactional');
    const id = sim.registration!.id;
    const r = await h.post(`/v1/devices/${id}/retry-failed`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ device_id: id, cause: 'operator', retried: 2, reoffered: 0, skipped_expired: 0 });
    for (const f of [a, b]) expect(await deliveryOf(h, f.id)).toMatchObject({ state: 'ready' });
    const replays = await h.store.review.listReplays(h.tenantId, (await deliveryOf(h, a.id)).id);
    expect(replays).toEqual([expect.objectContaining({ requestedBy: 'key_test', fromState: 'retryable' })]);
    expect((await h.get(`/v1/devices/${id}/sweeps`)).json.items).toEqual([expect.objectContaining({ cause: 'operator', retried: 2 })]);
    expect((await h.post(`/v1/devices/${id}/retry-failed`)).json).toMatchObject({ retried: 0 });
    // The audit trail: who retried, on the device (docs/dashboard.md).
    const device = await h.get(`/v1/devices/${id}`);
    expect(device.json.actions.map((x: { action: string; by: { id: string }; detail: { retried: number } }) => [x.action, x.by.id, x.detail.retried])).toEqual([
      ['device_retry_failed', 'key_test', 2],
      ['device_retry_failed', 'key_test', 0],
    ]);
  });

  it('retries every message the phone reported Failed, also before the report applier folded the report in', async () => {
    // What the operator sees: the device's message list says Failed as soon as the phone's report
    // is recorded; the applier moves the delivery (unknown → retryable) a pass later (up to its
    // 1 s interval, longer on a loaded machine). "Retry all failed" must retry what the list shows.
    const a = await failOne('transactional', false);
    const b = await failOne('transactional', false);
    const id = sim.registration!.id;
    for (const f of [a, b]) expect(await deliveryOf(h, f.id)).toMatchObject({ state: 'unknown' });
    const listed = await h.get(`/v1/devices/${id}/messages?phone_state=Failed`);
    expect(listed.json.items.map((m: { message_id: string }) => m.message_id).sort()).toEqual([a.messageId, b.messageId].sort());

    expect((await h.post(`/v1/devices/${id}/retry-failed`)).json).toMatchObject({ cause: 'operator', retried: 2 });
    for (const f of [a, b]) expect(await deliveryOf(h, f.id)).toMatchObject({ state: 'ready' });
  });

  it('retries one message the phone reported Failed before the report applier folded the report in', async () => {
    const a = await failOne('transactional', false);
    const id = sim.registration!.id;
    expect(await deliveryOf(h, a.id)).toMatchObject({ state: 'unknown' });
    const r = await h.post(`/v1/devices/${id}/messages/${a.messageId}/retry`);
    expect(r).toMatchObject({ status: 202, json: { action: 'retried' } });
    expect(await deliveryOf(h, a.id)).toMatchObject({ state: 'ready' });
  });
});
