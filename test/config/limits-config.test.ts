/** The `limits:` section: defaults, overrides, a purpose's own rules, what the schema refuses, and the warnings. */
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/config.js';
import { limitsWarnings, resolveLimits } from '../../src/config/limits-config.js';

describe('limits config', () => {
  it('fills a key override from the default quota and gives a named purpose exactly its rules', () => {
    const l = resolveLimits({
      requests: { limit: 100, keys: { key_a: { limit: 5 }, key_b: { window_s: 1 } } },
      velocity: { otp: { per_destination: { max: 3, window_s: 60 } }, transactional: { per_recipient: { max: 50, window_s: 3600 } } },
      sms: { countries: ['US', 'GB', 'US'] },
    });
    expect(l.requests).toEqual({ limit: 100, windowS: 60 });
    expect(l.requestOverrides).toEqual({ key_a: { limit: 5, windowS: 60 }, key_b: { limit: 100, windowS: 1 } });
    expect(l.velocity).toEqual({
      otp: [{ subject: 'destination', max: 3, windowMs: 60_000 }],
      transactional: [{ subject: 'recipient', max: 50, windowMs: 3_600_000 }],
    });
    expect(l.smsCountries).toEqual(['US', 'GB']);
    expect(l.smsRefusedNumberTypes).toEqual(['PREMIUM_RATE']);
    expect(resolveLimits({ requests: { enabled: false }, velocity: { otp: {} } })).toMatchObject({ requests: null, velocity: { otp: [] } });
  });

  it('refuses a country that is not an ISO code, an unknown number type, and a rule without its window, naming the field', () => {
    expect(() => resolveConfig({ limits: { sms: { countries: ['uk'] } } })).toThrow(ConfigError);
    expect(() => resolveConfig({ limits: { sms: { countries: ['uk'] } } })).toThrow(/limits\.sms\.countries\[0\]/);
    expect(() => resolveConfig({ limits: { sms: { refuse_number_types: ['EXPENSIVE'] } } })).toThrow(/limits\.sms\.refuse_number_types\[0\]/);
    expect(() => resolveConfig({ limits: { velocity: { otp: { per_destination: { max: 5 } } } } })).toThrow(
      /limits\.velocity\.otp\.per_destination\.window_s is required/,
    );
    expect(() => resolveConfig({ limits: { requests: { limit: 0 } } })).toThrow(/limits\.requests\.limit/);
  });

  it('warns about SMS to every country (only with an SMS account), an empty country list and codes without velocity rules', () => {
    expect(limitsWarnings(resolveLimits(undefined), 1)).toEqual([expect.stringContaining('limits.sms.countries is not set')]);
    expect(limitsWarnings(resolveLimits(undefined), 0)).toEqual([]);
    expect(limitsWarnings(resolveLimits({ sms: { countries: [] } }), 1)).toEqual([expect.stringContaining('every SMS is refused')]);
    expect(limitsWarnings(resolveLimits({ sms: { countries: ['US'] }, velocity: { otp: {} } }), 1)).toEqual([
      expect.stringContaining('limits.velocity.otp has no rules'),
    ]);
  });
});
