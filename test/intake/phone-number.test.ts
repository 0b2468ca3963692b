/**
 * A phone number read once on the way in (src/intake/phone-number.ts, issue 24): which numbers
 * are valid (full metadata: a number in a range its numbering plan assigns), what intake's check
 * hands on (`CheckedRequest.phone`), and the SMS limits judging the number from those facts:
 * premium rate refused, countries outside the list refused, the refusals' stable codes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isValidPhoneNumber as isValidByLengthAndPattern } from 'libphonenumber-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { NO_INTAKE_LIMITS, type IntakeLimitsPolicy } from '../../src/domain/index.js';
import { HeraldError } from '../../src/errors.js';
import { IntakeLimiter, type LimitedRoute } from '../../src/intake/intake-limiter.js';
import { checkNotificationRequest, recipientAddressError, type NotificationRequest } from '../../src/intake/notification-request.js';
import { readPhoneNumber, type PhoneNumberFacts } from '../../src/intake/phone-number.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { silentLogger, T0 } from '../helpers/harness.js';

describe('readPhoneNumber', () => {
  it.each([
    ['+14155550123', 'US', 'FIXED_LINE_OR_MOBILE'], // NANP 555 numbers: every fixture's, valid with the full metadata too
    ['+447400123456', 'GB', 'MOBILE'],
    ['+447911123456', 'GG', 'MOBILE'], // +44 7911 is Guernsey's: the region comes from the range, not the calling code
    ['+33612345678', 'FR', 'MOBILE'],
    ['+4915123456789', 'DE', 'MOBILE'],
    ['+15005550006', 'US', 'PERSONAL_NUMBER'], // Twilio's test-credential numbers
    ['+18005550199', 'US', 'TOLL_FREE'],
    ['+19005550123', 'US', 'PREMIUM_RATE'],
    ['+449098791000', 'GB', 'PREMIUM_RATE'],
    ['+80012345678', '001', 'TOLL_FREE'], // non-geographic: libphonenumber's region "001"
  ])('%s is valid: %s, %s', (number, country, type) => {
    expect(readPhoneNumber(number)).toEqual({ number, country, type });
  });

  it.each([
    ['4155550123', 'no +country code'],
    ['+1 415 555 0123', 'not E.164 (spaces)'],
    ['+1415', 'too short'],
    ['+999999999999', 'no such calling code'],
    ['+15551234567', 'NANP area code 555'],
    ['+447700900123', "Ofcom's drama range"],
    ['Call +14155550123', 'a number inside other text'],
  ])('%s is invalid (%s)', (number) => {
    expect(readPhoneNumber(number)).toBeNull();
  });

  // The one change of issue 24: the general pattern alone (libphonenumber-js's default metadata,
  // intake's rule until then) passed these; no numbering plan assigns them to any type.
  it.each([
    ['+37123011426', 'a Latvian 2301 number (Latvian mobiles are 2xxxxxxx, but 2301 is unassigned)'],
    ['+491511000000', 'a German 0151 mobile one digit short'],
    ['+81901000000', 'a Japanese 090 mobile one digit short'],
  ])('%s, %s, is refused now though its country pattern matches', (number) => {
    expect(isValidByLengthAndPattern(number)).toBe(true);
    expect(readPhoneNumber(number)).toBeNull();
  });
});

describe("intake's check hands the parsed number on", () => {
  const body = (phone: string): NotificationRequest => ({
    recipient: { id: 'r1', phone },
    purpose: 'otp',
    channels: ['sms'],
    content: { text: 'code 123456' },
  });

  it('returns what the parse read in CheckedRequest.phone; null without a phone', () => {
    expect(checkNotificationRequest(body('+447400123456'), T0).phone).toEqual({ number: '+447400123456', country: 'GB', type: 'MOBILE' });
    const email: NotificationRequest = { ...body('+447400123456'), recipient: { id: 'r1', email: 'ada@example.com' }, channels: ['email'] };
    expect(checkNotificationRequest({ ...email, content: { subject: 's', text: 't' } }, T0).phone).toBeNull();
  });

  it('refuses an invalid number with validation_failed naming recipient.phone, as before', () => {
    const err = catchHerald(() => checkNotificationRequest(body('+37123011426'), T0));
    expect(err.code).toBe('validation_failed');
    expect(err.status).toBe(400);
    expect(err.errors).toEqual([{ field: 'recipient.phone', message: 'must be a valid phone number in E.164 form, e.g. +14155550123' }]);
    expect(recipientAddressError({ id: 'r1', phone: '+37123011426' })).toEqual({ field: 'phone', message: err.errors[0]!.message });
    expect(recipientAddressError({ id: 'r1', phone: '+37120011426' })).toBeNull();
  });
});

describe('the SMS limits judge the facts they are handed', () => {
  let dir: string;
  let store: Store;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'herald-phone-'));
    store = openSqliteStore({ path: join(dir, 'herald.db') });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const limiter = (sms: Partial<IntakeLimitsPolicy>) =>
    new IntakeLimiter({ store, clock: new ManualClock(T0), logger: silentLogger, policy: { ...NO_INTAKE_LIMITS, ...sms } });
  const route = (destination: string): LimitedRoute => ({ channel: 'sms', destination });
  const facts = (number: string) => readPhoneNumber(number)!;

  it('refuses a premium-rate number with number_type_not_allowed, naming its type and country', () => {
    const err = catchHerald(() => limiter({ smsRefusedNumberTypes: ['PREMIUM_RATE'] }).checkSms([route('+449098791000')], facts('+449098791000')));
    expect(err.code).toBe('number_type_not_allowed');
    expect(err.status).toBe(422);
    expect(err.limit).toMatchObject({ name: 'sms_number_type', number_type: 'PREMIUM_RATE', country: 'GB' });
  });

  it('refuses a country not enabled with country_not_allowed, and passes the enabled ones', () => {
    const us = limiter({ smsCountries: ['US', 'GB'], smsRefusedNumberTypes: ['PREMIUM_RATE'] });
    expect(() => us.checkSms([route('+14155550123')], facts('+14155550123'))).not.toThrow();
    expect(() => us.checkSms([route('+447400123456')], facts('+447400123456'))).not.toThrow();
    const err = catchHerald(() => us.checkSms([route('+33612345678')], facts('+33612345678')));
    expect(err.code).toBe('country_not_allowed');
    expect(err.limit).toMatchObject({ name: 'sms_country', country: 'FR', allowed: ['US', 'GB'] });
    // Guernsey is not GB: its +44 7911 mobiles need GG in the list.
    expect(catchHerald(() => us.checkSms([route('+447911123456')], facts('+447911123456'))).code).toBe('country_not_allowed');
    expect(catchHerald(() => us.checkSms([route('+80012345678')], facts('+80012345678'))).limit).toMatchObject({ country: '001' });
  });

  it("takes the route's number from the facts given (no second parse), and reads a route to another number itself", () => {
    const premiumOnly = limiter({ smsRefusedNumberTypes: ['PREMIUM_RATE'] });
    // Facts that say premium for an ordinary number: only a limiter that uses them refuses it.
    const claimed: PhoneNumberFacts = { number: '+14155550123', country: 'US', type: 'PREMIUM_RATE' };
    expect(catchHerald(() => premiumOnly.checkSms([route('+14155550123')], claimed)).code).toBe('number_type_not_allowed');
    // Facts of another number do not apply to this route: it is read here.
    expect(catchHerald(() => premiumOnly.checkSms([route('+19005550123')], facts('+14155550123'))).code).toBe('number_type_not_allowed');
    expect(() => premiumOnly.checkSms([route('+14155550123')], null)).not.toThrow();
    // Other channels are not SMS: an e-mail route passes whatever the facts say.
    expect(() => premiumOnly.checkSms([{ channel: 'email', destination: 'ada@example.com' }], claimed)).not.toThrow();
  });

  it('checks nothing when no SMS limit is configured', () => {
    const claimed: PhoneNumberFacts = { number: '+449098791000', country: 'GB', type: 'PREMIUM_RATE' };
    expect(() => limiter({}).checkSms([route('+449098791000')], claimed)).not.toThrow();
  });
});

function catchHerald(run: () => unknown): HeraldError {
  try {
    run();
  } catch (err) {
    if (err instanceof HeraldError) return err;
    throw err;
  }
  throw new Error('expected a HeraldError');
}
