/**
 * What callbacks one accepted message will get, decided when it is accepted: the truthful
 * event sequence (`sent`, then `delivered` or `bounced`/`failed`, then maybe `complained`),
 * then the misbehaviour a real provider shows (swapped pairs, repeated events) and a delay
 * per emission. Pure and drawn from the sandbox's seeded PRNG in a fixed order, so the same
 * seed and the same sequence of acceptances plan the same callbacks.
 */
import type { Channel } from '../domain/index.js';
import type { SandboxBehaviour } from './behaviour.js';
import type { RandomSource } from './random.js';

/** The statuses the sandbox emits; a subset of Herald's downstream statuses. */
export type CallbackStatus = 'sent' | 'delivered' | 'bounced' | 'failed' | 'complained';

export interface PlannedEvent {
  status: CallbackStatus;
  /** Set on an e-mail bounce: every sandbox bounce is a hard one (the address is bad). */
  bounceType?: 'hard';
}

export interface PlannedEmission {
  /** Index into `CallbackPlan.events`. */
  event: number;
  /** True when this re-sends an event already emitted (same event id). */
  duplicate: boolean;
  /** Wait before this emission, after the previous one finished. */
  delayMs: number;
}

export interface CallbackPlan {
  /** In truth order. */
  events: PlannedEvent[];
  /** In emission order: a reordered pair and appended duplicates show here. */
  emissions: PlannedEmission[];
}

type PlanSettings = Pick<SandboxBehaviour, 'bounce_probability' | 'complaint_probability' | 'reorder_probability' | 'duplicate_probability' | 'delay_ms'>;

// Draws only for a probability above 0, as the fault switchboard does, so that a setting
// left at 0 never shifts the draws of the others.
function happens(random: RandomSource, probability: number): boolean {
  return probability > 0 && random() < probability;
}

/** Plans the callbacks of one message accepted on `channel`, drawing from `random`. */
export function planCallbacks(channel: Channel, settings: PlanSettings, random: RandomSource): CallbackPlan {
  const events: PlannedEvent[] = [{ status: 'sent' }];
  if (happens(random, settings.bounce_probability)) {
    events.push(channel === 'email' ? { status: 'bounced', bounceType: 'hard' } : { status: 'failed' });
  } else {
    events.push({ status: 'delivered' });
    if (channel === 'email' && happens(random, settings.complaint_probability)) {
      events.push({ status: 'complained' });
    }
  }

  const order = events.map((_, index) => index);
  for (let i = 0; i + 1 < order.length; i += 1) {
    if (!happens(random, settings.reorder_probability)) continue;
    [order[i], order[i + 1]] = [order[i + 1]!, order[i]!];
    i += 1; // an event moves at most one place
  }
  const emissions: Array<Omit<PlannedEmission, 'delayMs'>> = order.map((event) => ({ event, duplicate: false }));
  // A duplicate comes after every original, the hardest case for a receiver: it may repeat
  // an event the receiver has already moved past.
  for (const event of order) {
    if (happens(random, settings.duplicate_probability)) emissions.push({ event, duplicate: true });
  }

  const { min, max } = settings.delay_ms;
  return {
    events,
    emissions: emissions.map((emission) => ({
      ...emission,
      delayMs: max > min ? min + Math.floor(random() * (max - min + 1)) : min,
    })),
  };
}
