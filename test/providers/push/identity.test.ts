/** What a push carries of its delivery's identity and lifetime (src/providers/push/). */
import { describe, expect, it } from 'vitest';
import type { ProviderAccountConfig } from '../../../src/providers/provider.js';
import { dataOnlyProblems } from '../../../src/providers/push/data-only.js';
import { nameBasedUuid, pushCollapseId, pushDeliveryUuid } from '../../../src/providers/push/identity.js';
import { apnsExpiration, isUrgentPurpose, remainingSeconds, webPushUrgency } from '../../../src/providers/push/lifetime.js';

describe('collapse identity', () => {
  it('is 32 hex digits, stable for a key, different for another: valid as Topic, apns-collapse-id and collapse_key', () => {
    const a = pushCollapseId('hk_abc');
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(pushCollapseId('hk_abc')).toBe(a);
    expect(pushCollapseId('hk_abd')).not.toBe(a);
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(64);
  });

  it('apns-id is a version-5 UUID of the key; the algorithm matches RFC 9562’s test vector', () => {
    // RFC 9562 Appendix A.4: namespace DNS, name www.example.com.
    expect(nameBasedUuid(Buffer.from('6ba7b8109dad11d180b400c04fd430c8', 'hex'), 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    const id = pushDeliveryUuid('hk_abc');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pushDeliveryUuid('hk_abc')).toBe(id);
    expect(pushDeliveryUuid('hk_abd')).not.toBe(id);
  });
});

describe('lifetime', () => {
  const now = 1_700_000_000_000;
  it('whole seconds left, rounded down, never below 0 nor above the ceiling', () => {
    expect(remainingSeconds(now + 600_999, now, 2_419_200)).toBe(600);
    expect(remainingSeconds(now + 999, now, 2_419_200)).toBe(0);
    expect(remainingSeconds(now - 5_000, now, 2_419_200)).toBe(0);
    expect(remainingSeconds(now + 90 * 86_400_000, now, 2_419_200)).toBe(2_419_200);
  });

  it('apns-expiration is the expiry second, or 0 once less than a second is left', () => {
    expect(apnsExpiration(now + 60_500, now)).toBe(String(Math.floor((now + 60_500) / 1000)));
    expect(apnsExpiration(now + 500, now)).toBe('0');
  });

  it('urgency by purpose', () => {
    expect(['otp', 'alert', 'transactional', 'conversational', 'marketing'].map((p) => [isUrgentPurpose(p as never), webPushUrgency(p as never)])).toEqual([
      [true, 'high'],
      [true, 'high'],
      [false, 'normal'],
      [false, 'normal'],
      [false, 'low'],
    ]);
  });
});

describe('data_only', () => {
  const base = { id: 'a', kind: 'fcm', channel: 'push', rate_per_second: 1, burst: 1, timeout_ms: 1000 } as const;
  it('refuses a data-only account that claims deduplication or resends with the same key, naming the fields', () => {
    const account = {
      ...base,
      ambiguity_policy: 'resend_same_key',
      ambiguity_policies: { otp: 'resend_same_key' },
      capabilities: { dedupes_by_key: true },
      settings: { data_only: true },
    } as ProviderAccountConfig;
    expect(dataOnlyProblems(account).map((p) => p.field)).toEqual(['capabilities.dedupes_by_key', 'ambiguity_policy', 'ambiguity_policies.otp']);
    const fixed = {
      ...base,
      ambiguity_policy: 'wait_for_evidence',
      capabilities: { dedupes_by_key: false },
      settings: { data_only: true },
    } as ProviderAccountConfig;
    expect(dataOnlyProblems(fixed)).toEqual([]);
    expect(dataOnlyProblems({ ...account, settings: {} })).toEqual([]);
  });
});
