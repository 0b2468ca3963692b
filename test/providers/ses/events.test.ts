/**
 * SES event records (as SES publishes them to SNS) onto the downstream lattice: one table,
 * the shapes from "Examples of event data that Amazon SES publishes to Amazon SNS".
 */
import { describe, expect, it } from 'vitest';
import { parseSesEvent } from '../../../src/providers/ses/ses-events.js';
import { sesEvent } from '../fakes/sns.js';

const AT = Date.UTC(2025, 0, 15, 12, 0, 0);
const mail = { messageId: 'EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000', reference: 'hk_abc-DEF_123' };

describe('SES events → callback events', () => {
  const table: Array<[string, string, Record<string, unknown>, string, 'bounced' | 'complained' | null]> = [
    ['Send', 'Send', {}, 'sent', null],
    ['DeliveryDelay', 'DeliveryDelay', { delayType: 'MailboxFull', timestamp: '2025-01-15T12:05:00.000Z' }, 'sent', null],
    ['Delivery', 'Delivery', { timestamp: '2025-01-15T12:00:02.000Z', recipients: ['ada@example.com'] }, 'delivered', null],
    ['Open', 'Open', { timestamp: '2025-01-15T13:00:00.000Z' }, 'delivered', null],
    ['Click', 'Click', { timestamp: '2025-01-15T13:00:05.000Z', link: 'https://example.com' }, 'delivered', null],
    ['Bounce Permanent', 'Bounce', { bounceType: 'Permanent', bounceSubType: 'General', timestamp: '2025-01-15T12:00:03.000Z' }, 'bounced', 'bounced'],
    ['Bounce Permanent on the suppression list', 'Bounce', { bounceType: 'Permanent', bounceSubType: 'OnAccountSuppressionList' }, 'bounced', 'bounced'],
    ['Bounce Transient', 'Bounce', { bounceType: 'Transient', bounceSubType: 'MailboxFull' }, 'bounced', null],
    ['Bounce Undetermined', 'Bounce', { bounceType: 'Undetermined', bounceSubType: 'Undetermined' }, 'bounced', null],
    ['Complaint abuse', 'Complaint', { complaintFeedbackType: 'abuse', timestamp: '2025-01-15T14:00:00.000Z' }, 'complained', 'complained'],
    ['Complaint without a feedback type', 'Complaint', { complainedRecipients: [{ emailAddress: 'ada@example.com' }] }, 'complained', 'complained'],
    ['Complaint not-spam', 'Complaint', { complaintFeedbackType: 'not-spam' }, 'delivered', null],
    ['Reject', 'Reject', { reason: 'Bad content' }, 'failed', null],
    ['Rendering Failure', 'Rendering Failure', { errorMessage: 'Attribute name is missing', templateName: 't' }, 'failed', null],
  ];
  for (const [name, eventType, detail, status, suppress] of table) {
    it(`${name} → ${status}${suppress ? `, suppress ${suppress}` : ''}`, () => {
      const parse = parseSesEvent(sesEvent(eventType, mail, detail), 'sns-1', AT);
      expect(parse).toMatchObject({ ok: true, events: [{ eventId: 'sns-1', status, suppress, providerMessageId: mail.messageId, reference: mail.reference }] });
    });
  }

  it('the time is the event’s own, else the mail’s, else the SNS Timestamp', () => {
    const own = parseSesEvent(sesEvent('Delivery', mail, { timestamp: '2025-01-15T12:00:02.000Z' }), 'e', AT);
    const mailTime = parseSesEvent(sesEvent('Send', { ...mail, timestamp: '2025-01-15T11:00:00.000Z' }), 'e', AT);
    const noTime = parseSesEvent(JSON.stringify({ eventType: 'Send', mail: { messageId: 'm' }, send: {} }), 'e', AT);
    expect(own.ok && own.events[0]?.occurredAt).toBe(Date.parse('2025-01-15T12:00:02.000Z'));
    expect(mailTime.ok && mailTime.events[0]?.occurredAt).toBe(Date.parse('2025-01-15T11:00:00.000Z'));
    expect(noTime.ok && noTime.events[0]?.occurredAt).toBe(AT);
  });

  it('events that carry no downstream meaning record nothing', () => {
    expect(parseSesEvent(sesEvent('Subscription', mail, {}), 'e', AT)).toEqual({ ok: true, events: [] });
    expect(parseSesEvent(sesEvent('SomethingNew', mail, {}), 'e', AT)).toEqual({ ok: true, events: [] });
    expect(parseSesEvent(JSON.stringify({ notificationType: 'AmazonSnsSubscriptionSucceeded', message: 'ok' }), 'e', AT)).toEqual({ ok: true, events: [] });
  });

  it('identity feedback notifications (notificationType, no tags) are read by messageId', () => {
    const parse = parseSesEvent(
      JSON.stringify({ notificationType: 'Bounce', bounce: { bounceType: 'Permanent' }, mail: { messageId: 'm-1', timestamp: '2025-01-15T11:00:00Z' } }),
      'e',
      AT,
    );
    expect(parse).toMatchObject({ ok: true, events: [{ status: 'bounced', suppress: 'bounced', providerMessageId: 'm-1', reference: null }] });
  });

  it('a reference tag SES could not have sent is ignored; an event with no id at all is malformed', () => {
    const odd = parseSesEvent(JSON.stringify({ eventType: 'Send', mail: { messageId: 'm', tags: { herald_reference: ['has space'] } } }), 'e', AT);
    expect(odd).toMatchObject({ ok: true, events: [{ reference: null, providerMessageId: 'm' }] });
    expect(parseSesEvent(JSON.stringify({ eventType: 'Send', mail: { tags: {} } }), 'e', AT)).toMatchObject({ ok: false, status: 400 });
    expect(parseSesEvent(JSON.stringify({ eventType: 'Send', mail: { tags: { herald_reference: ['hk_x'] } } }), 'e', AT)).toMatchObject({
      ok: true,
      events: [{ reference: 'hk_x', providerMessageId: null }],
    });
  });

  it('malformed records are 400, naming what is missing', () => {
    expect(parseSesEvent('nope', 'e', AT)).toMatchObject({ ok: false, status: 400, detail: expect.stringMatching(/not JSON/) });
    expect(parseSesEvent('[]', 'e', AT)).toMatchObject({ ok: false, status: 400 });
    expect(parseSesEvent('{"mail":{}}', 'e', AT)).toMatchObject({ ok: false, detail: expect.stringMatching(/eventType/) });
    expect(parseSesEvent('{"eventType":"Delivery"}', 'e', AT)).toMatchObject({ ok: false, detail: expect.stringMatching(/mail/) });
    expect(parseSesEvent(JSON.stringify({ eventType: 'Bounce', mail: { messageId: 'm' } }), 'e', AT)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/bounce/),
    });
  });
});
