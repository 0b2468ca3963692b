import { describe, expect, it } from 'vitest';
import { decodeNumberCursor, encodeNumberCursor } from '../../src/http/list-cursor.js';
import { HeraldError } from '../../src/errors.js';

describe('number cursors (alerts, erasures, a campaign’s refusals)', () => {
  it('round-trips every non-negative position, 0 included (the first audience row can be a refusal)', () => {
    for (const n of [0, 1, 49, 123_456_789]) expect(decodeNumberCursor('refusal', encodeNumberCursor('refusal', n))).toBe(n);
    expect(decodeNumberCursor('alert', encodeNumberCursor('alert', '17'))).toBe(17);
  });

  it("refuses another list's cursor and anything it did not issue with invalid_cursor", () => {
    const foreign = encodeNumberCursor('alert', 5);
    for (const c of [
      foreign,
      'garbage',
      Buffer.from('refusal:-1').toString('base64url'),
      Buffer.from('refusal:01').toString('base64url'),
      Buffer.from('refusal:').toString('base64url'),
    ]) {
      let err: unknown;
      try {
        decodeNumberCursor('refusal', c);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(HeraldError);
      expect((err as HeraldError).code).toBe('invalid_cursor');
    }
  });
});
