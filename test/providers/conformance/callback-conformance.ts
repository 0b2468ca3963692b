/**
 * The callback verifier conformance suite: what every provider kind's callback verification
 * must do, whatever its scheme (Standard Webhooks, Svix, HMAC-SHA1, Ed25519, SNS). A valid
 * callback parses to events; a tampered body, an unlisted key or a stale timestamp is 401
 * `callback_signature_invalid` with nothing parsed; the same event delivered again parses to
 * the same event id (the dedupe key); during a rotation every listed key verifies and a
 * removed one does not; no failure detail quotes a key or the event's data.
 *
 * Usage, one line per provider kind: `describeCallbackVerifierConformance(sandboxCallbackSubject)`.
 */
import { describe, expect, it } from 'vitest';
import type { CallbackParse, CallbackRequest } from '../../../src/providers/provider.js';
import { expectNoLeak } from './canaries.js';
import type { CallbackVerifierSubject, SampleEvent } from './callback-subject.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

const EVENT: SampleEvent = {
  eventId: 'evt_canary_0001',
  providerMessageId: 'pm_canary_0001',
  reference: 'ref-canary-0001',
  channel: 'sms',
  status: 'delivered',
  occurredAt: NOW - 60_000,
  destination: '+15550197341',
};

const ANOTHER_EVENT: SampleEvent = { ...EVENT, eventId: 'evt_canary_0002', status: 'sent' };

/** Same length as EVENT.providerMessageId, so only the signature can tell. */
const TAMPERED_ID = 'pm_canary_0009';

function refused(parse: CallbackParse): void {
  expect(parse).toMatchObject({ ok: false, status: 401, code: 'callback_signature_invalid' });
}

/** Defines the callback verifier conformance suite for one provider kind. */
export function describeCallbackVerifierConformance(subject: CallbackVerifierSubject): void {
  describe(`callback verifier conformance: ${subject.name}`, () => {
    const current = subject.newKey();
    const old = subject.newKey();
    const stranger = subject.newKey();
    const privateData = [current, old, stranger, EVENT.providerMessageId, EVENT.reference, EVENT.destination, EVENT.destination.slice(1)];

    /** Verifies at NOW (a verifier may answer with a promise: SNS fetches its certificate) and checks that a failure's detail quotes nothing private. */
    async function verify(keys: readonly string[], request: CallbackRequest): Promise<CallbackParse> {
      const parse = await subject.verifier(keys).verify(request, NOW);
      if (!parse.ok) expectNoLeak(parse, privateData);
      return parse;
    }

    function eventIds(parse: CallbackParse): string[] {
      expect(parse.ok, JSON.stringify(parse)).toBe(true);
      return parse.ok ? parse.events.map((event) => event.eventId) : [];
    }

    it('a valid callback parses to its events', async () => {
      const parse = await verify([current], subject.deliver(EVENT, { key: current, atMs: NOW }));
      expect(parse).toMatchObject({ ok: true });
      if (!parse.ok) return;
      expect(parse.events.length).toBeGreaterThan(0);
      expect(parse.events[0]).toMatchObject({ status: EVENT.status, providerMessageId: EVENT.providerMessageId });
      expect(parse.events[0]?.eventId).toEqual(expect.stringMatching(/\S/));
    });

    const unsigned = subject.unsignedBody;
    if (unsigned !== undefined) {
      it.skip(`a tampered body: 401 callback_signature_invalid (skipped: ${unsigned.skip})`, () => {});
    } else {
      it('a tampered body: 401 callback_signature_invalid', async () => {
        const request = subject.deliver(EVENT, { key: current, atMs: NOW });
        const raw = request.rawBody.toString('latin1');
        expect(raw, 'the body must quote the provider message id for this check').toContain(EVENT.providerMessageId);
        const tampered = Buffer.from(raw.split(EVENT.providerMessageId).join(TAMPERED_ID), 'latin1');
        refused(await verify([current], { ...request, rawBody: tampered }));
      });
    }

    it('signed with a key the account does not list: 401', async () => {
      refused(await verify([current], subject.deliver(EVENT, { key: stranger, atMs: NOW })));
    });

    const timestamp = subject.timestamp;
    if ('skip' in timestamp) {
      it.skip(`a stale timestamp: 401 (skipped: ${timestamp.skip})`, () => {});
    } else {
      it('a stale timestamp: 401; one just inside the tolerance verifies', async () => {
        const { toleranceMs } = timestamp;
        refused(await verify([current], subject.deliver(EVENT, { key: current, atMs: NOW - toleranceMs - 60_000 })));
        expect((await verify([current], subject.deliver(EVENT, { key: current, atMs: NOW - toleranceMs + 60_000 }))).ok).toBe(true);
      });
    }

    it('the same event delivered twice parses to the same event id; another event to another', async () => {
      // A provider's retry: the same event, signed again later.
      const first = eventIds(await verify([current], subject.deliver(EVENT, { key: current, atMs: NOW - 30_000 })));
      const again = eventIds(await verify([current], subject.deliver(EVENT, { key: current, atMs: NOW })));
      const other = eventIds(await verify([current], subject.deliver(ANOTHER_EVENT, { key: current, atMs: NOW })));
      expect(again).toEqual(first);
      expect(other).not.toEqual(first);
    });

    it('secret rotation: both listed keys verify; a removed one is refused', async () => {
      const rotating = [current, old];
      expect((await verify(rotating, subject.deliver(EVENT, { key: current, atMs: NOW }))).ok).toBe(true);
      expect((await verify(rotating, subject.deliver(EVENT, { key: old, atMs: NOW }))).ok).toBe(true);
      refused(await verify([current], subject.deliver(EVENT, { key: old, atMs: NOW })));
    });
  });
}
