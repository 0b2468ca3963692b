/** The pure planner of callback events: truth order, misbehaviour, delays, reproducibility. */
import { describe, expect, it } from 'vitest';
import { defaultBehaviour, type SandboxBehaviour } from '../../src/sandbox/index.js';
import { planCallbacks, type CallbackPlan } from '../../src/sandbox/callback-plan.js';
import { mulberry32 } from '../../src/sandbox/random.js';

function settings(over: Partial<SandboxBehaviour> = {}): SandboxBehaviour {
  return { ...defaultBehaviour(), ...over };
}

/** The statuses in emission order, a duplicate marked with '+'. */
function emitted(plan: CallbackPlan): string[] {
  return plan.emissions.map((e) => `${plan.events[e.event]!.status}${e.duplicate ? '+' : ''}`);
}

describe('planCallbacks', () => {
  it('by default: sent then delivered on every channel, no delay', () => {
    for (const channel of ['email', 'sms', 'push'] as const) {
      const plan = planCallbacks(channel, settings(), mulberry32(1));
      expect(emitted(plan)).toEqual(['sent', 'delivered']);
      expect(plan.emissions.map((e) => e.delayMs)).toEqual([0, 0]);
    }
  });

  it('bounce_probability 1: email bounces hard, sms and push fail', () => {
    const email = planCallbacks('email', settings({ bounce_probability: 1, complaint_probability: 1 }), mulberry32(1));
    expect(email.events).toEqual([{ status: 'sent' }, { status: 'bounced', bounceType: 'hard' }]);
    for (const channel of ['sms', 'push'] as const) {
      expect(planCallbacks(channel, settings({ bounce_probability: 1 }), mulberry32(1)).events).toEqual([{ status: 'sent' }, { status: 'failed' }]);
    }
  });

  it('complaint_probability 1: a delivered e-mail is then complained about; never sms or push', () => {
    expect(emitted(planCallbacks('email', settings({ complaint_probability: 1 }), mulberry32(1)))).toEqual(['sent', 'delivered', 'complained']);
    expect(emitted(planCallbacks('sms', settings({ complaint_probability: 1 }), mulberry32(1)))).toEqual(['sent', 'delivered']);
  });

  it('reorder_probability 1 swaps consecutive pairs, each event moving at most one place', () => {
    expect(emitted(planCallbacks('sms', settings({ reorder_probability: 1 }), mulberry32(1)))).toEqual(['delivered', 'sent']);
    const email = planCallbacks('email', settings({ reorder_probability: 1, complaint_probability: 1 }), mulberry32(1));
    expect(emitted(email)).toEqual(['delivered', 'sent', 'complained']);
  });

  it('duplicate_probability 1 repeats every event after all originals', () => {
    expect(emitted(planCallbacks('push', settings({ duplicate_probability: 1 }), mulberry32(1)))).toEqual(['sent', 'delivered', 'sent+', 'delivered+']);
  });

  it('delays are drawn within delay_ms, inclusive', () => {
    const random = mulberry32(9);
    const seen = new Set<number>();
    for (let i = 0; i < 200; i += 1) {
      for (const e of planCallbacks('sms', settings({ delay_ms: { min: 3, max: 6 } }), random).emissions) {
        seen.add(e.delayMs);
      }
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });

  it('is reproducible for a seed and mixes outcomes at probability 0.5', () => {
    const mixed = settings({ bounce_probability: 0.5, reorder_probability: 0.5, duplicate_probability: 0.5 });
    const run = (seed: number): string => {
      const random = mulberry32(seed);
      return Array.from({ length: 30 }, () => emitted(planCallbacks('email', mixed, random)).join(',')).join('|');
    };
    expect(run(5)).toBe(run(5));
    expect(run(5)).not.toBe(run(6));
    expect(run(5)).toContain('bounced');
    expect(run(5)).toContain('delivered');
    expect(run(5)).toContain('+');
  });
});
