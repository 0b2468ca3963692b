/**
 * Builders shared by the store conformance suite: notifications with derived delivery keys,
 * deterministic decisions from `decide`, and the fixed clock every test starts from.
 * Nothing here knows which driver is under test.
 */
import { decide, deriveDeliveryKey, type Channel, type DeliveryEvent, type Purpose, type RetryPolicy, type Transition } from '../../src/domain/index.js';
import { ulidMaker } from '../../src/ids.js';
import type { DeliveryView, NewNotification, Store } from '../../src/store/store.js';
import { ContentCipher } from '../../src/store/content-cipher.js';

/** The conformance suites run with content sealed at rest, as the runtime always does (docs/retention.md). */
export const TEST_CONTENT_CIPHER = new ContentCipher([{ id: 'conformance', key: Buffer.alloc(32, 7) }]);

/** 2023-11-14T22:13:20Z: every test's clock starts here and only moves by explicit amounts. */
export const T0 = 1_700_000_000_000;
export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** No jitter and a 1 s base, so a retry's `nextAttemptAt` is exactly `now + 1 s` after attempt 1. */
export const TEST_POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: SECOND, maxDelayMs: MINUTE, jitter: 'none' };

// Herald's ids are ULIDs, made as src/ids.ts makes them: ids created in order at one time sort in
// that order, which is what "newest first" pagination relies on, and each carries its own time.
const nextUlid = ulidMaker();

/** A fresh id with a readable prefix whose time part is `at`. */
export function newId(prefix: string, at: number = T0): string {
  return `${prefix}_${nextUlid(at)}`;
}

export interface PlannedDelivery {
  channel: Channel;
  providerAccount: string;
  destination?: string;
}

export interface NotificationSpec {
  tenantId: string;
  createdAt?: number;
  /** Time to live from `createdAt`; one hour unless given. */
  ttlMs?: number;
  purpose?: Purpose;
  recipientId?: string;
  groupKey?: string;
  generation?: number;
  deliveries?: PlannedDelivery[];
  metadata?: Record<string, unknown> | null;
}

/** A valid NewNotification whose delivery keys are derived the way intake derives them. */
export function buildNotification(spec: NotificationSpec): NewNotification {
  const createdAt = spec.createdAt ?? T0;
  const id = newId('ntf', createdAt);
  const purpose = spec.purpose ?? 'transactional';
  const recipientId = spec.recipientId ?? `rcp_${id}`;
  const groupKey = spec.groupKey ?? id;
  const generation = spec.generation ?? 1;
  const planned = spec.deliveries ?? [{ channel: 'email', providerAccount: 'acct-email' }];
  return {
    id,
    tenantId: spec.tenantId,
    recipient: { id: recipientId, email: 'ada@example.test', phone: '+15550100001', locale: 'en' },
    purpose,
    channels: [...new Set(planned.map((p) => p.channel))],
    content: { subject: `Subject ${id}`, text: `Body of ${id}`, html: null },
    groupKey,
    generation,
    metadata: spec.metadata === undefined ? { order: id } : spec.metadata,
    expiresAt: createdAt + (spec.ttlMs ?? HOUR),
    createdAt,
    deliveries: planned.map((p) => ({
      id: newId('dlv', createdAt),
      channel: p.channel,
      providerAccount: p.providerAccount,
      destination: p.destination ?? (p.channel === 'email' ? 'ada@example.test' : '+15550100001'),
      idempotencyKey: deriveDeliveryKey({ tenantId: spec.tenantId, recipientId, groupKey, generation, channel: p.channel, purpose }),
    })),
  };
}

/** Creates `count` one-delivery notifications on one account, one second apart; returns the delivery ids in creation order. */
export async function seedDeliveries(
  store: Store,
  spec: Omit<NotificationSpec, 'deliveries' | 'createdAt'> & { count: number; providerAccount: string; channel?: Channel; createdAt?: number },
): Promise<string[]> {
  const ids: string[] = [];
  const start = spec.createdAt ?? T0;
  for (let i = 0; i < spec.count; i++) {
    const n = buildNotification({
      ...spec,
      createdAt: start + i * SECOND,
      deliveries: [{ channel: spec.channel ?? 'email', providerAccount: spec.providerAccount }],
    });
    await store.createNotification(n);
    ids.push(n.deliveries[0]!.id);
  }
  return ids;
}

/** The facts `decide` reads, as a DeliveryView or a worker's own copy from its claim carries them. */
export type DecisionFacts = Pick<DeliveryView, 'state' | 'attemptCount' | 'expiresAt' | 'nextAttemptAt'>;

/** Asks `decide` about a delivery; throws if the event does not apply. */
export function mustDecide(d: DecisionFacts, event: DeliveryEvent, now: number, policy: RetryPolicy = TEST_POLICY): Transition {
  const decision = decide({ state: d.state, attemptCount: d.attemptCount, expiresAt: d.expiresAt, nextAttemptAt: d.nextAttemptAt }, event, {
    now,
    policy,
    random: () => 0.5,
  });
  if (!decision.ok) throw new Error(`decide refused ${event.type} in ${d.state}: ${decision.reason}`);
  return decision;
}

/** Reads a delivery that must exist. */
export async function mustGetDelivery(store: Store, id: string): Promise<DeliveryView> {
  const d = await store.getDelivery(id);
  if (!d) throw new Error(`delivery ${id} not found`);
  return d;
}
