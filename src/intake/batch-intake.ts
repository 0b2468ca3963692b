/**
 * POST /v1/notifications/batch: many notifications accepted in one request, each answered on its
 * own, in order. Every item goes through the same checks as POST /v1/notifications and is
 * idempotent by its own key under the same rules (one key namespace: an item is fingerprinted as
 * the single request with its body would be). The items that survive their checks are written,
 * and their keys taken and completed, by one `store.createNotifications` call (one transaction:
 * no reservation of its own per key), and each account they go through is woken once, after the
 * commit.
 *
 * Items naming the same key are processed as if sent one after another: the first occurrence
 * in one round, the next in a second round once the first is committed (it then replays the
 * first's answer, or is 422 for another body). A batch without repeated keys is one round.
 */
import type { Clock } from '../clock.js';
import { HeraldError, toProblem, type ProblemDocument } from '../errors.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { BatchNotification, KeyRefusal, NewNotification, Store, StoreConflictError, TenantIdempotencyCompletion } from '../store/store.js';
import { notificationFingerprint } from './fingerprint.js';
import type { NotificationRequest } from './notification-request.js';
import { duplicateChallenge, keyMismatch, staleGeneration } from './refusals.js';
import type { IntakeLimiter, VelocityTicket } from './intake-limiter.js';

/** Where a batch item's problem documents point (RFC 9457 `instance`); the item's index is in its result. */
export const BATCH_INSTANCE = '/v1/notifications/batch';

/** One item that passed the route's schema: its body (without `idempotency_key`) and its key, if any. */
export interface BatchItem {
  body: NotificationRequest;
  idempotencyKey: string | null;
}

/**
 * What one item got. `status` is 202 (accepted now), 200 (its key replayed an earlier
 * acceptance: nothing new was written), or a problem's 4xx (a replayed stored problem keeps its
 * status); `replayed` says the answer came from the key's stored response.
 */
export interface BatchItemAnswer {
  status: number;
  notification: unknown;
  problem: ProblemDocument | null;
  replayed: boolean;
}

/** A body checked and built by intake, not yet written. */
export interface PlannedNotification {
  notification: NewNotification;
  /** The 202 body, stored with the item's key for replay. */
  response: Record<string, unknown>;
  /** The provider accounts its deliveries go through, woken after the commit. */
  accounts: string[];
}

export interface BatchDeps {
  store: Store;
  clock: Clock;
  lockMs: number;
  retentionMs: number;
  /** Checks and builds one body as POST /v1/notifications would (IntakeService.plan); throws HeraldError for a body it refuses. */
  plan(tenantId: string, body: NotificationRequest, now: number): Promise<PlannedNotification>;
  /** The velocity rules each item is counted against once its key is reserved (as a single POST is). */
  limits?: IntakeLimiter;
  wake?: (providerAccount: string) => void;
  counters?: DeliveryCounters;
  /** Test hook: runs before each round's store call (a failure there leaves nothing written and no key taken). */
  beforeCommit?: () => Promise<void>;
}

/** An item on its way: its plan and key, until it has an answer. */
interface Pending {
  index: number;
  plan: PlannedNotification;
  key: string | null;
  fingerprint: string;
}

const problemAnswer = (err: HeraldError): BatchItemAnswer => ({
  status: err.status,
  notification: null,
  problem: toProblem(err, BATCH_INSTANCE),
  replayed: false,
});

/**
 * Answers every item, in order. An item's own bad data (400/422), a key conflict (409/422) or a
 * refused generation (409) is that item's answer only. A failure of the store itself (the
 * database is gone) rejects the whole call: that round took no key and committed nothing (earlier
 * rounds stand), so the client may send the same batch again.
 */
export async function acceptBatch(deps: BatchDeps, tenantId: string, items: BatchItem[]): Promise<BatchItemAnswer[]> {
  const now = deps.clock.now();
  const answers = new Array<BatchItemAnswer | undefined>(items.length);
  const planned = await Promise.all(
    items.map((item, index) =>
      deps.plan(tenantId, item.body, now).then(
        (plan): Pending => ({ index, plan, key: item.idempotencyKey, fingerprint: notificationFingerprint(item.body) }),
        (err: unknown) => {
          if (!(err instanceof HeraldError)) throw err;
          answers[index] = problemAnswer(err);
          return null;
        },
      ),
    ),
  );
  // The n-th occurrence of a key (among the items that passed their checks) goes in round n.
  const rounds: Pending[][] = [];
  const seen = new Map<string, number>();
  for (const p of planned) {
    if (p === null) continue;
    const round = p.key === null ? 0 : (seen.get(p.key) ?? 0);
    if (p.key !== null) seen.set(p.key, round + 1);
    (rounds[round] ??= []).push(p);
  }
  const woken = new Set<string>();
  for (const round of rounds) {
    for (const [index, answer, accounts] of await acceptRound(deps, tenantId, now, round)) {
      answers[index] = answer;
      for (const a of accounts) woken.add(a);
    }
  }
  for (const a of woken) deps.wake?.(a);
  return answers as BatchItemAnswer[];
}

/**
 * One round in one store call: the store takes each item's key in the batch's own transaction
 * (BatchKeyTerms: the key row is written once, already completed, with no reservation committed
 * beforehand), writes the items whose keys it took and those without a key, and says for the
 * others what their key held. A failure of the store leaves nothing of the round and no key taken.
 */
async function acceptRound(deps: BatchDeps, tenantId: string, now: number, candidates: Pending[]): Promise<Array<[number, BatchItemAnswer, string[]]>> {
  const out: Array<[number, BatchItemAnswer, string[]]> = [];
  // Velocity, item by item in order (an item's take sees the earlier items'): a refused item is
  // answered as the single endpoint would (its key's replay when it has one, else 429 with its key
  // left free); the others go on. Items the store then does not write give their takes back.
  const tickets = new Map<Pending, VelocityTicket>();
  const limits = deps.limits;
  const giveBack = async (items: Pending[]): Promise<void> => {
    if (limits) await Promise.all(items.map((p) => limits.release(tickets.get(p) ?? [])));
  };
  let round = candidates;
  if (limits) {
    round = [];
    for (const p of candidates) {
      try {
        tickets.set(p, await limits.take(p.plan.notification, now));
        round.push(p);
      } catch (err) {
        if (!(err instanceof HeraldError)) {
          await giveBack(round);
          throw err;
        }
        out.push(await velocityRefusal(deps, tenantId, now, p, problemAnswer(err)));
      }
    }
    if (round.length === 0) return out;
  }

  let outcomes;
  try {
    await deps.beforeCommit?.();
    outcomes = await deps.store.createNotifications(
      round.map((p): BatchNotification => {
        const idempotency: TenantIdempotencyCompletion | undefined =
          p.key === null ? undefined : { tenantId, key: p.key, fingerprint: p.fingerprint, statusCode: 202, body: p.plan.response };
        return idempotency ? { notification: p.plan.notification, idempotency } : { notification: p.plan.notification };
      }),
      { now, lockMs: deps.lockMs, retentionMs: deps.retentionMs },
    );
  } catch (err) {
    // Nothing of the round was committed (and no key taken): the codes it counted were not sent.
    await giveBack(round);
    throw err;
  }

  const refusals: Array<Promise<[number, BatchItemAnswer, string[]]>> = [];
  const notWritten: Pending[] = [];
  round.forEach((p, i) => {
    const o = outcomes[i]!;
    if (o.ok) {
      for (const s of o.superseded) deps.counters?.inc('superseded_deliveries', s);
      out.push([p.index, { status: 202, notification: p.plan.response, problem: null, replayed: false }, p.plan.accounts]);
      return;
    }
    notWritten.push(p);
    if ('key' in o) {
      out.push([p.index, keyAnswer(o.key, p.fingerprint), []]);
      return;
    }
    const refusal = refusalFor(o.conflict, p.plan.notification);
    if (refusal === null) {
      // A uniqueness rule intake does not expect (e.g. a notification id taken): this item failed
      // as the single endpoint's 500 would, its key left free for a retry; the others stand.
      out.push([p.index, problemAnswer(new HeraldError('internal_error', 'an unexpected error occurred; retry this item', [], { cause: o.conflict })), []]);
      return;
    }
    const answer = problemAnswer(refusal);
    // A definite refusal of the generation replays as itself, as on the single endpoint: the key
    // (left as it was by the refused write) is taken and completed with the problem. A key that
    // another request took meanwhile is that request's: the item gets what the key holds.
    if (p.key !== null && refusal.code !== 'idempotency_key_in_use') refusals.push(storeRefusal(deps, tenantId, now, p, answer));
    else out.push([p.index, answer, []]);
  });
  await giveBack(notWritten);
  out.push(...(await Promise.all(refusals)));
  return out;
}

/**
 * An item the velocity rules refused. A key that already holds an answer (a replay, another body,
 * a request in progress) answers with it, as on the single endpoint, where the key is looked at
 * first; otherwise the refusal, with the key left free for a later try.
 */
async function velocityRefusal(
  deps: BatchDeps,
  tenantId: string,
  now: number,
  p: Pending,
  answer: BatchItemAnswer,
): Promise<[number, BatchItemAnswer, string[]]> {
  if (p.key === null) return [p.index, answer, []];
  const r = await deps.store.reserveIdempotencyKey({
    tenantId,
    key: p.key,
    fingerprint: p.fingerprint,
    now,
    lockMs: deps.lockMs,
    retentionMs: deps.retentionMs,
  });
  if (r.kind !== 'reserved') return [p.index, keyAnswer(r, p.fingerprint), []];
  await deps.store.releaseIdempotencyKey({ tenantId, key: p.key });
  return [p.index, answer, []];
}

/** Takes the item's key and stores its refusal for replay; answers what the key held if another request has it. */
async function storeRefusal(deps: BatchDeps, tenantId: string, now: number, p: Pending, answer: BatchItemAnswer): Promise<[number, BatchItemAnswer, string[]]> {
  const key = p.key!;
  const r = await deps.store.reserveIdempotencyKey({ tenantId, key, fingerprint: p.fingerprint, now, lockMs: deps.lockMs, retentionMs: deps.retentionMs });
  if (r.kind !== 'reserved') return [p.index, keyAnswer(r, p.fingerprint), []];
  await deps.store.completeIdempotencyKey({ tenantId, key, fingerprint: p.fingerprint, statusCode: answer.status, body: answer.problem });
  return [p.index, answer, []];
}

/** The answer to an item whose key the store did not take: a replay, another body (422), or a request still holding it (409). */
function keyAnswer(k: KeyRefusal, fingerprint: string): BatchItemAnswer {
  if (k.kind === 'replay') return replayAnswer(k.statusCode, k.body);
  if (k.kind === 'mismatch') return problemAnswer(keyMismatch(k.fingerprint, fingerprint));
  return problemAnswer(new HeraldError('idempotency_key_in_use', 'a request with this idempotency_key is still being processed; retry shortly'));
}

/** The single endpoint's answer to a conflict of the store, or null for one it does not expect. */
function refusalFor(conflict: StoreConflictError, n: NewNotification): HeraldError | null {
  switch (conflict.detail.constraint) {
    case 'notifications.stale_generation':
      return staleGeneration(n, conflict);
    case 'notifications.challenge':
    case 'deliveries.idempotency_key':
      return duplicateChallenge(n, conflict);
    case 'idempotency_keys':
      return new HeraldError('idempotency_key_in_use', 'a request with this idempotency_key is being processed; retry shortly', [], { cause: conflict });
    default:
      return null;
  }
}

/** A key's stored answer: an acceptance replays as 200 (nothing new was written), a stored problem as itself. */
function replayAnswer(statusCode: number, body: unknown): BatchItemAnswer {
  return statusCode < 400
    ? { status: 200, notification: body, problem: null, replayed: true }
    : { status: statusCode, notification: null, problem: body as ProblemDocument, replayed: true };
}
