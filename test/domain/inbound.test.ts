/** Two-way SMS's pure rules: keywords, the phone's webhook signature and bodies, the phone's health. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  compileKeywords,
  CTIA_KEYWORDS,
  healthChoiceRank,
  INBOUND_KINDS,
  isLowBattery,
  isOfflineWithQueue,
  isPingOverdue,
  parsePhoneWebhook,
  PHONE_WEBHOOK_EVENTS,
  readPingHealth,
  recognizeKeyword,
  signPhoneWebhook,
  verifyPhoneWebhook,
  type KeywordSet,
} from '../../src/domain/index.js';

function compiled(settings?: Parameters<typeof compileKeywords>[0]): KeywordSet {
  const r = compileKeywords(settings);
  if (!r.ok) throw new Error(r.error);
  return r.set;
}

describe('keywords', () => {
  const ctia = compiled();
  it('recognizes the CTIA set, case and spaces aside', () => {
    for (const w of CTIA_KEYWORDS.stop) expect(recognizeKeyword(w.toLowerCase(), ctia)).toBe('stop');
    for (const w of CTIA_KEYWORDS.start) expect(recognizeKeyword(w, ctia)).toBe('start');
    for (const w of CTIA_KEYWORDS.help) expect(recognizeKeyword(` ${w} `, ctia)).toBe('help');
    expect(recognizeKeyword('Stop all', ctia)).toBe('stop');
    expect(recognizeKeyword('S T O P', ctia)).toBe('stop');
    expect(recognizeKeyword('stop.', ctia)).toBe('stop');
    expect(recognizeKeyword('\tSTOP!\n', ctia)).toBe('stop');
    expect(recognizeKeyword('ＳＴＯＰ', ctia)).toBe('stop');
  });
  it('matches only a whole message', () => {
    expect(recognizeKeyword('please stop texting me', ctia)).toBeNull();
    expect(recognizeKeyword('stopping', ctia)).toBeNull();
    expect(recognizeKeyword('', ctia)).toBeNull();
    expect(recognizeKeyword('STOP'.repeat(40), ctia)).toBeNull();
  });
  it("takes an account's own words and other languages", () => {
    const es = compiled({ add: { stop: ['PARAR', 'baja'], start: ['alta'], help: ['ayuda'] } });
    expect(recognizeKeyword('Baja', es)).toBe('stop');
    expect(recognizeKeyword('ayuda', es)).toBe('help');
    expect(recognizeKeyword('STOP', es)).toBe('stop');
    const only = compiled({ replace: { start: ['RESUME'] } });
    expect(recognizeKeyword('yes', only)).toBeNull();
    expect(recognizeKeyword('resume', only)).toBe('start');
  });
  it('refuses a word listed for two actions, and an empty word', () => {
    const r = compileKeywords({ add: { start: ['stop'] } });
    expect(r).toEqual({ ok: false, error: expect.stringContaining('both stop and start') });
    expect(compileKeywords({ add: { help: [' . '] } }).ok).toBe(false);
  });
});

describe('phone webhooks: signature', () => {
  const key = 'k3yK3yK3';
  const body = '{"id":"e1","event":"system:ping"}';
  const now = 1_800_000_000_000;
  const ts = String(now / 1000);
  it('signs as the app does: hex HMAC-SHA256 over the body text then the timestamp', () => {
    expect(signPhoneWebhook(key, body, ts)).toBe(
      createHmac('sha256', key)
        .update(body + ts)
        .digest('hex'),
    );
  });
  it('accepts the right key inside the window, either way', () => {
    const signature = signPhoneWebhook(key, body, ts);
    expect(verifyPhoneWebhook({ body, timestamp: ts, signature, keys: [key], nowMs: now + 299_000 })).toEqual({ ok: true, timestampMs: now });
    expect(
      verifyPhoneWebhook({ body: Buffer.from(body), timestamp: ts, signature: signature.toUpperCase(), keys: ['old', key], nowMs: now - 299_000 }).ok,
    ).toBe(true);
  });
  it('refuses what is missing, stale, forged or altered', () => {
    const signature = signPhoneWebhook(key, body, ts);
    const v = (over: Partial<Parameters<typeof verifyPhoneWebhook>[0]>) =>
      verifyPhoneWebhook({ body, timestamp: ts, signature, keys: [key], nowMs: now, ...over });
    expect(v({ signature: undefined })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(v({ timestamp: '' })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(v({ timestamp: '1.5' })).toEqual({ ok: false, reason: 'bad_timestamp' });
    expect(v({ nowMs: now + 301_000 })).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(v({ windowSeconds: 10, nowMs: now + 11_000 })).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(v({ keys: ['other'] })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(v({ body: body.replace('ping', 'pong') })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(v({ signature: 'zz' })).toEqual({ ok: false, reason: 'bad_signature' });
    // The timestamp is signed: a replay with a fresh timestamp and the old signature fails.
    expect(v({ timestamp: String(now / 1000 + 60), nowMs: now + 60_000 })).toEqual({ ok: false, reason: 'bad_signature' });
  });
});

describe('phone webhooks: bodies', () => {
  const envelope = (event: string, payload: unknown) => ({ id: 'evt1', webhookId: 'wh1', event, deviceId: 'dev1', payload });
  it('reads a received SMS, data SMS and MMS', () => {
    expect(
      parsePhoneWebhook(
        envelope('sms:received', {
          messageId: 'm1',
          sender: '+14155550100',
          recipient: null,
          simNumber: 2,
          phoneNumber: '+14155550100',
          message: 'STOP',
          receivedAt: '2026-12-04T20:01:02.000+01:00',
        }),
      ),
    ).toEqual({
      event: 'received',
      id: 'evt1',
      deviceId: 'dev1',
      received: { kind: 'sms', messageId: 'm1', sender: '+14155550100', content: 'STOP', simNumber: 2, receivedAtMs: Date.parse('2026-12-04T19:01:02Z') },
    });
    // Before `sender`, the app sent only `phoneNumber`.
    expect(parsePhoneWebhook(envelope('sms:received', { messageId: 'm1', phoneNumber: '+1', message: 'x' }))?.event).toBe('received');
    expect(parsePhoneWebhook(envelope('sms:data-received', { messageId: 'm2', sender: '+1', data: 'AAE=' }))).toMatchObject({
      received: { kind: 'data', content: 'AAE=' },
    });
    expect(parsePhoneWebhook(envelope('mms:received', { messageId: 'm3', sender: '+1', subject: null, transactionId: 't' }))).toMatchObject({
      received: { kind: 'mms', content: null },
    });
  });
  it('reads the state events of an offered message', () => {
    expect(
      parsePhoneWebhook(
        envelope('sms:failed', { messageId: 'abc-1', recipient: '+1', failedAt: '2026-12-04T19:00:00.000Z', reason: 'RESULT_ERROR_NO_SERVICE' }),
      ),
    ).toEqual({
      event: 'state',
      id: 'evt1',
      deviceId: 'dev1',
      report: { state: 'Failed', messageId: 'abc-1', reason: 'RESULT_ERROR_NO_SERVICE', atMs: Date.parse('2026-12-04T19:00:00Z') },
    });
    expect(parsePhoneWebhook(envelope('sms:delivered', { messageId: 'abc-1' }))).toMatchObject({ report: { state: 'Delivered', reason: null, atMs: null } });
  });
  it('refuses what Herald did not ask for or cannot use', () => {
    expect(parsePhoneWebhook(envelope('app:started', {}))).toBeNull();
    expect(parsePhoneWebhook(envelope('sms:received', { messageId: 'm1' }))).toBeNull();
    expect(parsePhoneWebhook({ ...envelope('system:ping', {}), id: '' })).toBeNull();
    expect(parsePhoneWebhook([])).toBeNull();
  });
});

describe('device health', () => {
  // A ping as the app at 0cdc5d8 sends it (HealthResponse serialized by Gson).
  const ping = {
    status: 'warn',
    version: '1.40.0',
    releaseId: 140,
    checks: {
      'messages:failed': { status: 'pass', observedValue: 0, observedUnit: 'messages', description: 'Failed messages for last hour' },
      'connection:status': { status: 'pass', observedValue: 1, observedUnit: 'boolean', description: 'Internet connection status' },
      'connection:transport': { status: 'pass', observedValue: 6, observedUnit: 'flags', description: 'Network transport type' },
      'connection:cellular': { status: 'pass', observedValue: 4, observedUnit: 'index', description: 'Cellular network type' },
      'battery:level': { status: 'warn', observedValue: 14, observedUnit: 'percent', description: 'Battery level in percent' },
      'battery:charging': { status: 'pass', observedValue: 0, observedUnit: 'flags', description: 'Is the phone charging?' },
    },
  };
  it('reads a ping into a sample', () => {
    expect(readPingHealth(ping)).toEqual({
      batteryPercent: 14,
      charging: false,
      internet: true,
      transports: ['cellular', 'wifi'],
      cellular: '4g',
      signal: null,
      failedLastHour: 0,
      appVersion: '1.40.0',
    });
    const plugged = { ...ping, checks: { ...ping.checks, 'battery:charging': { observedValue: 4 } } };
    expect(readPingHealth(plugged)?.charging).toBe(true);
    expect(readPingHealth({ checks: {} })).toBeNull();
    expect(readPingHealth('x')).toBeNull();
  });
  it('says low battery below 15 % when not on power', () => {
    expect(isLowBattery({ batteryPercent: 14, charging: false })).toBe(true);
    expect(isLowBattery({ batteryPercent: 14, charging: null })).toBe(true);
    expect(isLowBattery({ batteryPercent: 14, charging: true })).toBe(false);
    expect(isLowBattery({ batteryPercent: 15, charging: false })).toBe(false);
    expect(isLowBattery(null)).toBe(false);
    expect(healthChoiceRank({ batteryPercent: 5, charging: false })).toBe(1);
    expect(healthChoiceRank({ batteryPercent: 5, charging: true })).toBe(0);
  });
  it('says a ping is overdue after three intervals, and Internet lost with offers queued', () => {
    expect(isPingOverdue(0, 60, 180_000)).toBe(false);
    expect(isPingOverdue(0, 60, 180_001)).toBe(true);
    expect(isPingOverdue(null, 60, 10_000_000)).toBe(false);
    expect(isOfflineWithQueue({ internet: false }, 1)).toBe(true);
    expect(isOfflineWithQueue({ internet: false }, 0)).toBe(false);
    expect(isOfflineWithQueue({ internet: null }, 3)).toBe(false);
  });
});

describe('phone webhooks: the events Herald asks for', () => {
  it('reads a body of every event it lists, into a kind the schema knows', () => {
    const payload = { messageId: 'm1', sender: '+1', message: 'hi', data: 'AA==', subject: 's', health: {} };
    for (const event of PHONE_WEBHOOK_EVENTS) {
      const parsed = parsePhoneWebhook({ id: 'e', webhookId: 'w', event, deviceId: 'd', payload });
      expect(parsed, event).not.toBeNull();
      if (parsed?.event === 'received') expect(INBOUND_KINDS).toContain(parsed.received.kind);
    }
  });
});
