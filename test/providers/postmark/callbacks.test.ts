/**
 * Postmark's webhooks through the kind's verifier: HTTP Basic credentials from the webhook URL
 * (right, wrong, missing, rotated), every record type's place on the lattice, and the derived
 * event id that lets a retried webhook dedupe.
 */
import { describe, expect, it } from 'vitest';
import { createPostmarkCallbackVerifier, derivePostmarkEventId } from '../../../src/providers/postmark/callbacks.js';
import type { CallbackParse } from '../../../src/providers/provider.js';
import { postmarkRecords, postmarkWebhook, type PostmarkRecord } from '../fakes/postmark.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const CREDENTIALS = { username: 'herald', password: 'pw-canary-81f0' };
const REF = 'hk_postmarkCallbackReference0000000000000000';
const MESSAGE = '883953f4-6105-42a2-a16a-77a8eac79483';

function verify(record: PostmarkRecord, sent: { username: string; password: string } | null = CREDENTIALS, pairs = [CREDENTIALS]): CallbackParse {
  return createPostmarkCallbackVerifier(pairs).verify(postmarkWebhook(record, sent), NOW);
}

describe('postmark callbacks: credentials', () => {
  it("the URL's credentials: events; wrong, missing or not Basic: 401, nothing parsed", () => {
    expect(verify(postmarkRecords.delivery(MESSAGE, REF)).ok).toBe(true);
    expect(verify(postmarkRecords.delivery(MESSAGE, REF), { ...CREDENTIALS, password: 'wrong' })).toEqual({
      ok: false,
      status: 401,
      code: 'callback_signature_invalid',
      detail: 'bad_credentials',
    });
    expect(verify(postmarkRecords.delivery(MESSAGE, REF), { username: 'other', password: CREDENTIALS.password })).toMatchObject({ ok: false, status: 401 });
    expect(verify(postmarkRecords.delivery(MESSAGE, REF), null)).toMatchObject({ ok: false, status: 401, detail: 'missing_credentials' });
    const bearer = { ...postmarkWebhook(postmarkRecords.delivery(MESSAGE, REF), null), headers: { authorization: 'Bearer x' } };
    expect(createPostmarkCallbackVerifier([CREDENTIALS]).verify(bearer, NOW)).toMatchObject({ ok: false, status: 401, detail: 'not_basic_credentials' });
  });

  it('a forged body with the right credentials verifies (Postmark signs nothing): the URL is the only secret', () => {
    // Documented, not a bug: with no signature the credentials are all there is (HTTPS keeps them private).
    const forged = postmarkRecords.delivery('someone-elses-message', REF);
    expect(verify(forged).ok).toBe(true);
  });

  it('rotation: the current and the previous password both verify while listed', () => {
    const next = { username: 'herald', password: 'pw-next-5a2c' };
    expect(verify(postmarkRecords.delivery(MESSAGE, REF), CREDENTIALS, [next, CREDENTIALS]).ok).toBe(true);
    expect(verify(postmarkRecords.delivery(MESSAGE, REF), next, [next, CREDENTIALS]).ok).toBe(true);
    expect(verify(postmarkRecords.delivery(MESSAGE, REF), CREDENTIALS, [next])).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses empty credentials at construction', () => {
    expect(() => createPostmarkCallbackVerifier([{ username: 'u', password: '' }])).toThrow();
    expect(() => createPostmarkCallbackVerifier([])).toThrow();
  });
});

describe('postmark callbacks: records on the lattice', () => {
  const cases: Array<[string, PostmarkRecord, { status: string; suppress: string | null } | null]> = [
    ['Delivery', postmarkRecords.delivery(MESSAGE, REF), { status: 'delivered', suppress: null }],
    ['Bounce HardBounce', postmarkRecords.bounce(MESSAGE, REF, 'HardBounce'), { status: 'bounced', suppress: 'bounced' }],
    ['Bounce BadEmailAddress', postmarkRecords.bounce(MESSAGE, REF, 'BadEmailAddress'), { status: 'bounced', suppress: 'bounced' }],
    ['Bounce SoftBounce', postmarkRecords.bounce(MESSAGE, REF, 'SoftBounce'), { status: 'bounced', suppress: null }],
    ['Bounce Transient', postmarkRecords.bounce(MESSAGE, REF, 'Transient'), { status: 'bounced', suppress: null }],
    ['Bounce DnsError', postmarkRecords.bounce(MESSAGE, REF, 'DnsError'), { status: 'bounced', suppress: null }],
    ['Bounce SMTPApiError', postmarkRecords.bounce(MESSAGE, REF, 'SMTPApiError'), { status: 'failed', suppress: null }],
    ['Bounce of a type Postmark adds later', postmarkRecords.bounce(MESSAGE, REF, 'SomethingNew'), { status: 'bounced', suppress: null }],
    ['Bounce AutoResponder (a reply, not a bounce)', postmarkRecords.bounce(MESSAGE, REF, 'AutoResponder'), null],
    ['SpamComplaint', postmarkRecords.spamComplaint(MESSAGE, REF), { status: 'complained', suppress: 'complained' }],
    ['Open', postmarkRecords.open(MESSAGE), null],
    ['Click', postmarkRecords.click(MESSAGE), null],
    ['SubscriptionChange', postmarkRecords.subscriptionChange(MESSAGE), null],
    ['a record type Postmark adds later', { RecordType: 'Whatever', MessageID: MESSAGE }, null],
  ];
  for (const [label, record, expected] of cases) {
    it(`${label} → ${expected === null ? 'nothing recorded' : `${expected.status}${expected.suppress ? `, suppress ${expected.suppress}` : ''}`}`, () => {
      const parse = verify(record);
      expect(parse.ok).toBe(true);
      if (!parse.ok) return;
      if (expected === null) {
        expect(parse.events).toEqual([]);
        return;
      }
      expect(parse.events).toHaveLength(1);
      expect(parse.events[0]).toMatchObject({ status: expected.status, suppress: expected.suppress, providerMessageId: MESSAGE, reference: REF });
    });
  }

  it("occurredAt is the record's own time", () => {
    const parse = verify(postmarkRecords.delivery(MESSAGE, REF, '2026-11-29T12:00:05Z'));
    expect(parse).toMatchObject({ ok: true, events: [{ occurredAt: Date.parse('2026-11-29T12:00:05Z') }] });
  });

  it("a message sent without Herald's metadata: no reference, the MessageID still matches", () => {
    expect(verify(postmarkRecords.delivery(MESSAGE, null))).toMatchObject({ ok: true, events: [{ reference: null, providerMessageId: MESSAGE }] });
  });

  it('signed-but-unreadable is 400 naming the check, never quoting the body', () => {
    const pairs = [CREDENTIALS];
    const malformed = (rawBody: string) =>
      createPostmarkCallbackVerifier(pairs).verify({ ...postmarkWebhook({}, CREDENTIALS), rawBody: Buffer.from(rawBody) }, NOW);
    expect(malformed('not json canary.wren@example.test')).toEqual({ ok: false, status: 400, code: 'callback_malformed', detail: 'body is not JSON' });
    expect(malformed(JSON.stringify({ RecordType: 'Delivery', Recipient: 'canary.wren@example.test' }))).toEqual({
      ok: false,
      status: 400,
      code: 'callback_malformed',
      detail: 'MessageID is missing',
    });
    expect(malformed(JSON.stringify({ RecordType: 'Bounce', MessageID: MESSAGE, Type: 'HardBounce' }))).toEqual({
      ok: false,
      status: 400,
      code: 'callback_malformed',
      detail: 'ID is missing',
    });
    expect(malformed(JSON.stringify({ MessageID: MESSAGE }))).toEqual({ ok: false, status: 400, code: 'callback_malformed', detail: 'RecordType is missing' });
  });
});

describe('postmark callbacks: derived event ids', () => {
  function eventId(record: PostmarkRecord): string | undefined {
    const parse = verify(record);
    return parse.ok ? parse.events[0]?.eventId : undefined;
  }

  it('a retried webhook (the same record again) has the same id; the id keeps no address', () => {
    const id = eventId(postmarkRecords.delivery(MESSAGE, REF));
    expect(id).toMatch(/^pm_[A-Za-z0-9_-]{43}$/);
    expect(eventId(postmarkRecords.delivery(MESSAGE, REF))).toBe(id);
    expect(id).toBe(derivePostmarkEventId(['Delivery', MESSAGE, 'canary.wren@example.test', '2026-11-29T12:00:05Z']));
  });

  it('another event of the same message has another id: another record type, another bounce, another delivery time', () => {
    const delivery = eventId(postmarkRecords.delivery(MESSAGE, REF));
    const bounce = eventId(postmarkRecords.bounce(MESSAGE, REF, 'HardBounce', 1));
    const otherBounce = eventId(postmarkRecords.bounce(MESSAGE, REF, 'HardBounce', 2));
    const complaint = eventId(postmarkRecords.spamComplaint(MESSAGE, REF, 1));
    const later = eventId(postmarkRecords.delivery(MESSAGE, REF, '2026-11-29T13:00:00Z'));
    expect(new Set([delivery, bounce, otherBounce, complaint, later]).size).toBe(5);
    expect(bounce).toBe(derivePostmarkEventId(['Bounce', MESSAGE, '1', 'HardBounce', '2026-11-29T12:00:06Z']));
  });

  it('two bounces whose 64-bit IDs round to the same JSON number still differ by time', () => {
    // Bounce IDs are 64-bit; written as JSON numbers these two parse to the same double.
    const raw = (id: string, at: string) =>
      JSON.stringify({ ...postmarkRecords.bounce(MESSAGE, REF, 'SoftBounce', 1), BouncedAt: at }).replace('"ID":1,', `"ID":${id},`);
    const parse = (text: string) =>
      createPostmarkCallbackVerifier([CREDENTIALS]).verify({ ...postmarkWebhook({}, CREDENTIALS), rawBody: Buffer.from(text) }, NOW);
    const first = parse(raw('4323372036854775807', '2026-11-29T12:00:06Z'));
    const second = parse(raw('4323372036854775806', '2026-11-29T12:30:00Z'));
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    expect(first.events[0]?.eventId).not.toBe(second.events[0]?.eventId);
  });

  it('the metadata and the details do not change the id (Postmark may send a field more on a retry)', () => {
    const base = postmarkRecords.delivery(MESSAGE, REF);
    expect(eventId({ ...base, Details: 'other', Metadata: {} })).toBe(eventId(base));
  });
});
