/**
 * The android_gateway kind: the phone's failure texts (the app's own, from
 * me.capcom.smsgateway MessagesService.kt at 0cdc5d8) classified into retryable or permanent,
 * the report applier's decisions, and the kind's configuration checks.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig, ConfigError } from '../../../src/config/config.js';
import { createDeviceGateway } from '../../../src/devices/device-gateway.js';
import { planReport } from '../../../src/devices/report-applier.js';
import { parseStateReports } from '../../../src/devices/mobile-requests.js';
import { classifyPhoneFailure, PHONE_FAILURE_CODES } from '../../../src/providers/android-gateway/classify.js';
import { androidGatewayKind } from '../../../src/providers/android-gateway/kind.js';
import type { UnappliedReport } from '../../../src/store/store.js';
import { silentLogger } from '../../helpers/harness.js';
import { ManualClock } from '../../../src/clock.js';

/** What the app writes (error texts), what Herald keeps (the token), and what it means. */
const TABLE: Array<[string, string, boolean, number | null]> = [
  ['TTL expired', 'phone_ttl_expired', false, null],
  ['Send result: RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)', 'phone_no_service', false, null],
  ['Send result: RESULT_ERROR_RADIO_OFF (Failed because radio was explicitly turned off)', 'phone_radio_off', false, null],
  ['Send result: RESULT_RADIO_NOT_AVAILABLE (Failed because the radio was not available)', 'phone_radio_off', false, null],
  ['Send result: RESULT_ERROR_GENERIC_FAILURE (Generic failure cause)', 'phone_generic_failure', false, null],
  ['Send result: RESULT_ERROR_LIMIT_EXCEEDED (Failed because we reached the sending queue limit)', 'phone_rate_limited', false, 60_000],
  [
    'Send result: RESULT_ERROR_SHORT_CODE_NEVER_ALLOWED (Failed because the user has denied this app ever send premium short codes)',
    'phone_short_code_denied',
    true,
    null,
  ],
  ['Send result: RESULT_ENCODING_ERROR (Failed because of an encoding error)', 'phone_invalid_sms_format', true, null],
  ["Can't send message: No SIMs found", 'phone_no_sim', false, null],
  ["Can't send message: SIM 2 not found", 'phone_no_sim', false, null],
  ['Send result: RESULT_ERROR_FDN_CHECK_FAILURE (Failed because FDN is enabled)', 'phone_fdn_blocked', false, null],
  ['Send result: RESULT_MODEM_ERROR (Failed because of a modem error)', 'phone_send_failed', false, null],
  ['sendSMS: something the app did not expect', 'phone_send_failed', false, null],
];

describe('classifyPhoneFailure', () => {
  it.each(TABLE)('%s → %s', (text, code, permanent, retryAfterMs) => {
    // Herald keeps only the token of the text (mobile-requests.ts); the classifier reads that.
    const [report] = (
      parseStateReports([{ id: 'm1', state: 'Failed', recipients: [{ phoneNumber: '+1', state: 'Failed', error: text }], states: {} }]) as {
        ok: true;
        value: { error: string | null }[];
      }
    ).value;
    for (const input of [text, report!.error]) {
      expect(classifyPhoneFailure('Failed', input)).toMatchObject({ code, permanent, retryAfterMs });
    }
    expect(PHONE_FAILURE_CODES).toContain(code);
  });
  it('a message cancelled on the phone is permanent; the raw text of an error is never quoted', () => {
    expect(classifyPhoneFailure('Cancelled', null)).toMatchObject({ code: 'phone_cancelled', permanent: true });
    expect(classifyPhoneFailure('Failed', 'sendSMS: number +14155550123 refused').message).not.toContain('+1415');
  });
  it('a delivery-report failure counts as sent (downstream failed, not a retry)', () => {
    const parsed = parseStateReports([
      {
        id: 'm1',
        state: 'Failed',
        recipients: [{ phoneNumber: '+1', state: 'Failed', error: 'Delivery result from SC +12063130004: 69' }],
        states: { Processed: '2026-11-29T12:00:00.000Z' },
      },
    ]);
    expect(parsed).toMatchObject({ ok: true, value: [{ sent: true, error: 'Delivery result' }] });
  });
});

const T = Date.UTC(2026, 10, 29, 12);
const report = (over: Omit<Partial<UnappliedReport>, 'delivery'> & { delivery?: Partial<UnappliedReport['delivery']> }): UnappliedReport => ({
  offerId: 1,
  messageId: 'm-1',
  reportSeq: 1,
  phoneState: 'Processed',
  sent: false,
  phoneError: null,
  providerAccount: 'phones',
  current: true,
  attemptNumber: 1,
  ...over,
  delivery: {
    deliveryId: 'dlv_1',
    state: 'unknown',
    terminalReason: null,
    downstreamStatus: null,
    attemptCount: 1,
    leaseVersion: 3,
    expiresAt: T + 600_000,
    nextAttemptAt: null,
    purpose: 'otp',
    retryLadder: null,
    ...over.delivery,
  },
});

describe('planReport', () => {
  const plan = (r: UnappliedReport) => planReport(r, T, undefined, () => 0.5);
  it('a report that the phone holds the message: unknown → accepted, with its downstream status', () => {
    expect(plan(report({ phoneState: 'Sent', sent: true }))).toMatchObject({
      transition: { to: 'accepted' },
      downstreamStatus: 'sent',
      providerMessageId: 'm-1',
      resolvesAttempt: 1,
    });
    expect(plan(report({ phoneState: 'Delivered', sent: true, delivery: { state: 'accepted', downstreamStatus: 'sent' } }))).toMatchObject({
      transition: null,
      downstreamStatus: 'delivered',
    });
  });
  it('Failed before Sent: not_sent on the purpose ladder with the classified code; an old offer’s failure changes nothing', () => {
    const w = plan(report({ phoneState: 'Failed', phoneError: 'RESULT_ERROR_NO_SERVICE', delivery: { state: 'accepted', downstreamStatus: 'accepted' } }));
    expect(w).toMatchObject({
      transition: { from: 'accepted', to: 'retryable', on: 'not_sent', nextAttemptAt: T + 1_050 },
      lastErrorCode: 'phone_no_service',
      resolvesAttempt: null,
    });
    expect(plan(report({ phoneState: 'Failed', current: false }))).toMatchObject({ expect: null, transition: null });
    expect(plan(report({ phoneState: 'Failed', phoneError: 'RESULT_ENCODING_ERROR' }))).toMatchObject({
      transition: { to: 'terminal', terminalReason: 'rejected' },
      lastErrorCode: 'phone_invalid_sms_format',
    });
  });
  it('Failed after Sent: downstream failed, no retry', () => {
    expect(plan(report({ phoneState: 'Failed', sent: true, delivery: { state: 'accepted', downstreamStatus: 'sent' } }))).toMatchObject({
      transition: null,
      downstreamStatus: 'failed',
    });
  });
});

describe('android_gateway configuration', () => {
  const account = (settings: Record<string, unknown>, id = 'phones') => ({ id, kind: 'android_gateway', channel: 'sms', settings });
  it('needs a private token of at least 16 characters, and accepts only known settings', () => {
    expect(() => resolveConfig({ provider_accounts: [account({})] })).toThrow(/settings\.private_token is required/);
    expect(() => resolveConfig({ provider_accounts: [account({ private_token: 'short' })] })).toThrow(/at least 16 characters/);
    try {
      resolveConfig({ provider_accounts: [account({ private_token: 'x'.repeat(20), pull_timeout: 5 })] });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).field).toBe('provider_accounts[0].settings.pull_timeout');
    }
    expect(() => resolveConfig({ provider_accounts: [{ ...account({ private_token: 'x'.repeat(20) }), channel: 'email' }] })).toThrow(/sends sms/);
    expect(() => resolveConfig({ provider_accounts: [account({ private_token_env: 'HERALD_TEST_PHONE_TOKEN_UNSET' })] })).toThrow(
      /HERALD_TEST_PHONE_TOKEN_UNSET, which is not set/,
    );
    process.env.HERALD_TEST_PHONE_TOKEN = 't'.repeat(24);
    try {
      const cfg = resolveConfig({ provider_accounts: [account({ private_token_env: 'HERALD_TEST_PHONE_TOKEN' })] });
      // The kind's defaults: a day to wait for evidence, look-up (the re-offer), no resend under the same id.
      expect(cfg.provider_accounts[0]).toMatchObject({
        evidence_window_seconds: 86_400,
        timeout_ms: 5_000,
        capabilities: { lookup: true, dedupes_by_key: false },
      });
    } finally {
      delete process.env.HERALD_TEST_PHONE_TOKEN;
    }
  });
  it('refuses a device base path that would shadow the API, and two accounts with one private token', () => {
    expect(() => resolveConfig({ devices: { base_path: '/v1/phones' } })).toThrow(ConfigError);
    const cfg = resolveConfig({ provider_accounts: [account({ private_token: 'y'.repeat(20) }), account({ private_token: 'y'.repeat(20) }, 'phones-2')] });
    expect(() =>
      createDeviceGateway({ store: {} as never, clock: new ManualClock(T), logger: silentLogger, accounts: cfg.provider_accounts, devices: cfg.devices }),
    ).toThrow(/also the private token of account phones/);
  });
  it('describes the account without its token', () => {
    const a = resolveConfig({ provider_accounts: [account({ private_token: 'z'.repeat(20), device_rate_per_minute: 2 })] }).provider_accounts[0]!;
    const shown = JSON.stringify(androidGatewayKind.describe(a));
    expect(shown).not.toContain('zzzz');
    expect(androidGatewayKind.describe(a)).toMatchObject({ tenant: 'default', private_token: 'set in the configuration file', device_rate_per_minute: 2 });
  });
});
