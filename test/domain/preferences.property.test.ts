/**
 * Property tests for `sendability`: random opt-out sets, suppressions, purposes and channels.
 * Each property counts the cases it exercised, so a generator change cannot make it vacuous.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHANNELS,
  OPTIONAL_PURPOSES,
  PURPOSES,
  SUPPRESSION_REASONS,
  isOptionalPurpose,
  normalizeOptOuts,
  optOutCovers,
  sendability,
  type Channel,
  type OptOut,
  type Purpose,
  type SuppressionCause,
} from '../../src/domain/index.js';

const NUM_RUNS = 3000;

const optOutArb: fc.Arbitrary<OptOut> = fc.record({
  channel: fc.option(fc.constantFrom(...CHANNELS), { nil: null }),
  purpose: fc.option(fc.constantFrom(...OPTIONAL_PURPOSES), { nil: null }),
});

interface Case {
  purpose: Purpose;
  channel: Channel;
  optOuts: OptOut[];
  suppression: SuppressionCause | null;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  purpose: fc.constantFrom(...PURPOSES),
  channel: fc.constantFrom(...CHANNELS),
  optOuts: fc.array(optOutArb, { maxLength: 6 }),
  suppression: fc.option(fc.constantFrom(...SUPPRESSION_REASONS), { nil: null, freq: 3 }),
});

function property(check: (c: Case) => void): void {
  fc.assert(
    fc.property(caseArb, (c) => check(c)),
    { numRuns: NUM_RUNS },
  );
}

const ESSENTIAL = PURPOSES.filter((p) => !isOptionalPurpose(p));

describe('sendability', () => {
  it('never stops otp, transactional or alert for an opt-out, however broad', () => {
    let essentialWithOptOuts = 0;
    property((c) => {
      if (isOptionalPurpose(c.purpose)) return;
      // Without a hard suppression, an essential purpose always goes, whatever the opt-outs.
      if (c.suppression === 'bounced' || c.suppression === 'manual') return;
      expect(sendability(c.purpose, c.channel, c.optOuts, c.suppression)).toBe('send');
      if (c.optOuts.length > 0) essentialWithOptOuts++;
    });
    expect(essentialWithOptOuts).toBeGreaterThan(0);
    // The broadest opt-out there is: every channel, every optional purpose.
    for (const p of ESSENTIAL) for (const ch of CHANNELS) expect(sendability(p, ch, [{ channel: null, purpose: null }], null)).toBe('send');
  });

  it('a hard bounce or a manual suppression stops every purpose, otp included; a complaint stops only the optional purposes', () => {
    const seen = new Set<string>();
    property((c) => {
      if (c.suppression === null) return;
      const v = sendability(c.purpose, c.channel, c.optOuts, c.suppression);
      if (c.suppression === 'complained' && !isOptionalPurpose(c.purpose)) expect(v).toBe('send');
      else expect(v).toBe('suppressed');
      seen.add(`${c.suppression}|${isOptionalPurpose(c.purpose)}`);
    });
    expect(seen.size).toBe(SUPPRESSION_REASONS.length * 2);
  });

  it('an optional purpose is unsubscribed exactly when some opt-out covers its channel and purpose (and nothing suppresses it)', () => {
    let unsubscribed = 0;
    let sent = 0;
    property((c) => {
      if (!isOptionalPurpose(c.purpose) || c.suppression !== null) return;
      const covered = c.optOuts.some((o) => (o.channel === null || o.channel === c.channel) && (o.purpose === null || o.purpose === c.purpose));
      const v = sendability(c.purpose, c.channel, c.optOuts, null);
      expect(v).toBe(covered ? 'unsubscribed' : 'send');
      if (covered) unsubscribed++;
      else sent++;
    });
    expect(unsubscribed).toBeGreaterThan(0);
    expect(sent).toBeGreaterThan(0);
  });

  it('a channel-wide opt-out stops marketing and conversational on that channel only', () => {
    for (const ch of CHANNELS) {
      const wide: OptOut[] = [{ channel: ch, purpose: null }];
      for (const other of CHANNELS) {
        for (const p of OPTIONAL_PURPOSES) expect(sendability(p, other, wide, null)).toBe(other === ch ? 'unsubscribed' : 'send');
      }
    }
    // A marketing opt-out leaves conversational messages alone.
    expect(sendability('conversational', 'email', [{ channel: 'email', purpose: 'marketing' }], null)).toBe('send');
  });

  it('is monotone: more opt-outs or a suppression never turn a stop into a send', () => {
    let grown = 0;
    fc.assert(
      fc.property(caseArb, fc.array(optOutArb, { minLength: 1, maxLength: 3 }), (c, extra) => {
        const before = sendability(c.purpose, c.channel, c.optOuts, c.suppression);
        if (before === 'send') return;
        grown++;
        expect(sendability(c.purpose, c.channel, [...c.optOuts, ...extra], c.suppression)).not.toBe('send');
        expect(sendability(c.purpose, c.channel, c.optOuts, c.suppression ?? 'bounced')).not.toBe('send');
      }),
      { numRuns: NUM_RUNS },
    );
    expect(grown).toBeGreaterThan(0);
  });

  it('a STOP from the number stops every purpose on every channel, whatever the opt-outs and suppression say', () => {
    property((c) => {
      expect(sendability(c.purpose, c.channel, c.optOuts, c.suppression, true)).toBe('stopped');
    });
  });

  it('suppressed wins over unsubscribed when both apply', () => {
    let both = 0;
    property((c) => {
      const covered = c.optOuts.some((o) => optOutCovers(o, c.purpose, c.channel));
      const v = sendability(c.purpose, c.channel, c.optOuts, c.suppression);
      if (covered && c.suppression !== null) {
        expect(v).toBe('suppressed');
        both++;
      }
    });
    expect(both).toBeGreaterThan(0);
  });

  it('does not depend on the order or repetition of opt-outs; normalizeOptOuts keeps the verdict and drops repeats', () => {
    fc.assert(
      fc.property(caseArb, fc.integer(), (c, seed) => {
        const shuffled = [...c.optOuts, ...c.optOuts].sort(() => ((seed = (seed * 1103515245 + 12345) | 0) & 1 ? 1 : -1));
        const v = sendability(c.purpose, c.channel, c.optOuts, c.suppression);
        expect(sendability(c.purpose, c.channel, shuffled, c.suppression)).toBe(v);
        const normal = normalizeOptOuts(shuffled);
        expect(sendability(c.purpose, c.channel, normal, c.suppression)).toBe(v);
        expect(new Set(normal.map((o) => `${o.channel}|${o.purpose}`)).size).toBe(normal.length);
        expect(normalizeOptOuts(normal)).toEqual(normal);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
