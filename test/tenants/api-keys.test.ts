import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, looksLikeApiKey } from '../../src/tenants/api-keys.js';

describe('API keys', () => {
  it('are prefixed, random, checksummed, and one word', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) {
      expect(k).toMatch(/^hld_sk_[0-9A-Za-z]{38}$/);
      expect(looksLikeApiKey(k)).toBe(true);
    }
  });

  it('a changed character fails the checksum', () => {
    const k = generateApiKey();
    const flipped = k.slice(0, 10) + (k[10] === 'a' ? 'b' : 'a') + k.slice(11);
    expect(looksLikeApiKey(flipped)).toBe(false);
    expect(looksLikeApiKey('hld_sk_short')).toBe(false);
  });

  it('are stored as a SHA-256 hex digest, never as themselves', () => {
    const k = generateApiKey();
    const h = hashApiKey(k);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).not.toContain(k);
    expect(hashApiKey(k)).toBe(h);
  });
});
