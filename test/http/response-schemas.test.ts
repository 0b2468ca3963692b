/**
 * The answers that carry a response schema (src/http/response-schemas.ts) are serialized by it,
 * so a field the schema forgets is dropped and a null written as "" where the schema says string.
 * Each answer here is compared whole with what the view functions build from the store: the
 * schema must pass every field through unchanged, nulls included, before and after attempts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actionJson } from '../../src/http/audit-trail.js';
import {
  attemptJson,
  deliveryJson,
  deliveryListItemJson,
  duplicateAcrossAccountsJson,
  evidenceJson,
  notificationJson,
  templateJson,
} from '../../src/http/views.js';
import { createHarness, otpBody, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

/** What JSON makes of a view (dates already strings, undefined dropped). */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

async function notificationWithTwoDeliveries(): Promise<string> {
  const r = await h.send(otpBody({ channels: ['email', 'sms'], metadata: { order: 'A-1', n: 2 } }));
  expect(r.status, JSON.stringify(r.json)).toBe(202);
  return r.json.id as string;
}

describe('answers serialized by their response schemas', () => {
  for (const when of ['before any attempt', 'after the worker sent them'] as const) {
    it(`GET /v1/notifications/:id and /v1/deliveries(/:id) keep every field of the views, ${when}`, async () => {
      const id = await notificationWithTwoDeliveries();
      if (when !== 'before any attempt') await h.worker.drain();
      const n = (await h.store.getNotification(h.tenantId, id))!;

      const got = await h.get(`/v1/notifications/${id}`);
      expect(got.status).toBe(200);
      expect(got.json).toEqual(asJson({ ...notificationJson(n), reports: [], actions: [] }));

      for (const d of n.deliveries) {
        const detail = await h.get(`/v1/deliveries/${d.id}`);
        expect(detail.status).toBe(200);
        const evidence = await h.store.evidence.deliveryEvidence(d.id, 100);
        const actions = await h.store.audit.listForDelivery(h.tenantId, d.id);
        expect(detail.json).toEqual(
          asJson({
            ...deliveryJson(d),
            template: templateJson(n.content),
            attempts: d.attempts.map(attemptJson),
            evidence: evidenceJson(evidence),
            duplicate_across_accounts: duplicateAcrossAccountsJson(evidence),
            actions: actions.map(actionJson),
          }),
        );
      }

      const list = await h.get('/v1/deliveries?limit=10');
      expect(list.status).toBe(200);
      const page = await h.store.listDeliveries(h.tenantId, {}, null, 10);
      expect(list.json).toEqual(asJson({ items: page.items.map((d) => deliveryListItemJson(d, 'full')), next_cursor: null }));
    });
  }

  it('POST /v1/notifications answers 202 with every field it accepted (send_at, fallback), and its key replays the same', async () => {
    const sendAt = new Date(h.clock.now() + 3_600_000).toISOString();
    const body = otpBody({ purpose: 'transactional', channels: ['sms', 'email'], send_at: sendAt, fallback_after_seconds: 90, ttl_seconds: 7200 });
    const first = await h.send(body, { 'idempotency-key': 'schema-202' });
    expect(first.status, JSON.stringify(first.json)).toBe(202);
    const n = (await h.store.getNotification(h.tenantId, first.json.id))!;
    const [sms] = n.deliveries;
    expect(first.json).toEqual({
      id: n.id,
      purpose: 'transactional',
      created_at: new Date(h.clock.now()).toISOString(),
      send_at: sendAt,
      expires_at: new Date(n.expiresAt).toISOString(),
      fallback: { after_seconds: 90, evidence: 'accepted', pending_channels: ['email'] },
      deliveries: [{ id: sms!.id, channel: 'sms', state: 'ready', provider_account: sms!.providerAccount }],
    });
    const replay = await h.send(body, { 'idempotency-key': 'schema-202' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json).toEqual(first.json);
  });

  it('POST /v1/deliveries/:id/cancel answers the delivery as it now is', async () => {
    const id = await notificationWithTwoDeliveries();
    const [d] = (await h.store.getNotification(h.tenantId, id))!.deliveries;
    const r = await h.post(`/v1/deliveries/${d!.id}/cancel`, {});
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toEqual(asJson(deliveryJson((await h.store.getDelivery(d!.id))!)));
    expect(r.json).toMatchObject({ state: 'terminal', terminal_reason: 'cancelled', provider_message_id: null });
  });
});
