/**
 * The chaos run's verdict, computed from ground truth only: the intake answers the load
 * generator recorded, Herald's tables read directly (read-only SQL), and the sandbox's ledger
 * of every submission it accepted. Jepsen's total-queue checker in spirit: lost = acknowledged
 * but gone; duplicates = the provider accepted one logical delivery twice. With a route (two SMS
 * accounts on two sandboxes, their ledgers merged, each entry marked with its account), a
 * duplicate is the delivery key accepted twice by either or both (a moved delivery is sent under
 * its new account's own key, which names the delivery key: `deliveryKeyOfReference`), and every
 * move between accounts must show on the delivery's attempts.
 */
import type pg from 'pg';
import { deliveryKeyOfReference } from '../../src/domain/identity.js';
import type { IntakeRecord } from './load.js';

export interface LedgerEntry {
  idempotency_key: string;
  channel: string;
  destination: string;
  provider_message_id: string;
  received_at: string;
  /** The provider account whose sandbox holds the entry (set by the runner). */
  account?: string;
}

/** The route scenario's figures and its fifth check: every failover visible on its delivery. */
export interface RouteVerdict {
  /** Attempts after which the delivery moved to another account, by `failover_reason`. */
  failovers: Record<string, number>;
  /** The same attempts by `outcome/error_code`: the answers the moves followed. */
  failoversAfter: Record<string, number>;
  /** SMS deliveries whose attempts used more than one account. */
  movedDeliveries: number;
  /** SMS deliveries per final state and account, e.g. `accepted chaos-sms-backup`. */
  finalByAccount: Record<string, number>;
  /** Ledger entries per account. */
  ledgerByAccount: Record<string, number>;
  /** The route evaluator's demotions and restorations, in order: `demote chaos-sms (over_retry_budget; 25 calls, 14 failures)`. */
  changes: string[];
  /** 5. Moves the delivery does not show, and moves that must not happen under wait_for_evidence. */
  invisible: {
    total: number;
    /** Consecutive attempts on two accounts where the first has no failover_reason (or the delivery's account differs from its last attempt's without one). */
    unrecordedMove: number;
    /** An attempt that records a move, followed by an attempt on the same account. */
    recordedMoveNotMade: number;
    /** A ledger entry on an account none of its delivery's attempts used. */
    ledgerWithoutAttempt: number;
    /** A move after an `unknown` or a rescued lease: every sandbox account's policy is wait_for_evidence. */
    movedAfterUnknown: number;
  };
}

export interface Verdict {
  /** 1. Acknowledged (202) but missing or stuck. Unknown deliveries are not lost. */
  lost: {
    total: number;
    missingNotifications: number;
    /** Notifications whose delivery rows are not one per requested channel. */
    wrongDeliveryCount: number;
    /** ready/retryable/submitting deliveries whose expires_at (+ grace) has passed, at the end. */
    stuckPastExpiry: number;
    /** The most such deliveries seen at one sample while the run was going (the sweeper fell behind). */
    overdueDuringRun: number;
    /** `unknown` deliveries whose last attempt is not `unknown` or `lease_expired`. */
    unexplainedUnknown: number;
  };
  /** 2. Idempotency keys the ledger holds more than once. */
  duplicateKeys: number;
  /** 3. Ledger entries received more than `expiryAllowanceMs` after their delivery's expires_at. */
  lateSubmissions: number;
  /** Ledger entries received after expires_at by any amount (the strict count; >= lateSubmissions). */
  receivedAfterExpiry: number;
  /** Largest (received_at - expires_at) among entries received after expiry, ms. */
  worstLateMs: number;
  /** 4. State contradicted by the ledger. */
  contradictions: {
    total: number;
    retryableOrTerminalWithLedger: number;
    acceptedWithoutLedger: number;
    acceptedPmidMismatch: number;
    /** A ledger key no delivery has: a send Herald never took in (no unexpected sends). */
    ledgerKeyWithoutDelivery: number;
  };
  deliveries: {
    total: number;
    byState: Record<string, number>;
    terminalReasons: Record<string, number>;
    unknownSent: number;
    unknownNotSent: number;
    /** Deliveries the ledger shows as accepted by the provider, whatever their state. */
    submittedPerLedger: number;
  };
  attempts: {
    total: number;
    byOutcome: Record<string, number>;
    /** Attempts closed by the lease rescuer (the worker died or stalled holding the lease). */
    leasesRescued: number;
    /** Outcomes a worker reported after its lease had been rescued. */
    lateOutcomes: number;
    /** outcome/error_code -> count, e.g. `retryable/expired_before_send`. */
    byCode: Record<string, number>;
  };
  ledger: { entries: number; keys: number };
  /** Set in the route scenario. */
  route: RouteVerdict | null;
  /** A few examples per failed check, for the report. */
  examples: string[];
}

interface DeliveryRow {
  id: string;
  notification_id: string;
  state: string;
  terminal_reason: string | null;
  provider_message_id: string | null;
  idempotency_key: string;
  expires_at: string;
  attempt_count: number;
  last_outcome: string | null;
  channel: string;
  provider_account: string;
}

interface AttemptRow {
  delivery_id: string;
  number: number;
  provider_account: string | null;
  outcome: string | null;
  error_code: string | null;
  failover_reason: string | null;
}

export async function verify(
  client: pg.Client,
  records: IntakeRecord[],
  ledger: LedgerEntry[],
  opts: { now: number; stuckGraceMs: number; expiryAllowanceMs: number; overdueDuringRun: number; route: boolean },
): Promise<Verdict> {
  const examples: string[] = [];
  const example = (s: string) => {
    if (examples.length < 20) examples.push(s);
  };

  // ---- Herald's side, read once after the system settled.
  const notifications = new Map<string, number>();
  for (const r of (
    await client.query('SELECT n.id, count(d.id)::int AS n FROM notifications n LEFT JOIN deliveries d ON d.notification_id = n.id GROUP BY n.id')
  ).rows) {
    notifications.set(String(r.id), Number(r.n));
  }
  const deliveries = (
    await client.query<DeliveryRow>(
      `SELECT d.id, d.notification_id, d.state, d.terminal_reason, d.provider_message_id, d.idempotency_key,
              d.expires_at::text AS expires_at, d.attempt_count, a.outcome AS last_outcome, d.channel, d.provider_account
       FROM deliveries d LEFT JOIN attempts a ON a.delivery_id = d.id AND a.number = d.attempt_count`,
    )
  ).rows;
  const attemptRows = (await client.query('SELECT outcome, count(*)::int AS n, count(late_outcome)::int AS late FROM attempts GROUP BY outcome')).rows;
  const codeRows = (await client.query('SELECT outcome, error_code, count(*)::int AS n FROM attempts WHERE error_code IS NOT NULL GROUP BY 1, 2')).rows;

  // ---- The provider's side, by the delivery key each entry's key names on its account.
  const byKey = new Map<string, LedgerEntry[]>();
  for (const e of ledger) {
    const key = e.account === undefined ? e.idempotency_key : deliveryKeyOfReference(e.idempotency_key, e.account);
    const list = byKey.get(key);
    if (list) list.push(e);
    else byKey.set(key, [e]);
  }

  // 1. Lost.
  let missingNotifications = 0;
  let wrongDeliveryCount = 0;
  for (const rec of records) {
    if (rec.status !== 202 || rec.id === null) continue;
    const n = notifications.get(rec.id);
    if (n === undefined) {
      missingNotifications += 1;
      example(`lost: notification ${rec.id} (request ${rec.index}) answered 202 but has no row`);
    } else if (n !== rec.channels.length) {
      wrongDeliveryCount += 1;
      example(`lost: notification ${rec.id} has ${n} deliveries for ${rec.channels.length} channels`);
    }
  }
  let stuckPastExpiry = 0;
  let unexplainedUnknown = 0;
  const byState: Record<string, number> = {};
  const terminalReasons: Record<string, number> = {};
  let unknownSent = 0;
  let unknownNotSent = 0;
  let submittedPerLedger = 0;
  const byDeliveryKey = new Map<string, DeliveryRow>();
  // 4. Contradictions.
  let retryableOrTerminalWithLedger = 0;
  let acceptedWithoutLedger = 0;
  let acceptedPmidMismatch = 0;

  for (const d of deliveries) {
    byDeliveryKey.set(d.idempotency_key, d);
    byState[d.state] = (byState[d.state] ?? 0) + 1;
    if (d.state === 'terminal') terminalReasons[d.terminal_reason ?? '?'] = (terminalReasons[d.terminal_reason ?? '?'] ?? 0) + 1;
    const sent = byKey.get(d.idempotency_key) ?? [];
    if (sent.length > 0) submittedPerLedger += 1;
    const expiresAt = Number(d.expires_at);
    switch (d.state) {
      case 'ready':
      case 'retryable':
      case 'submitting':
        if (expiresAt + opts.stuckGraceMs < opts.now) {
          stuckPastExpiry += 1;
          example(`stuck: delivery ${d.id} is ${d.state} ${opts.now - expiresAt} ms after its expires_at`);
        }
        break;
      case 'unknown':
        if (sent.length > 0) unknownSent += 1;
        else unknownNotSent += 1;
        if (d.last_outcome !== 'unknown' && d.last_outcome !== 'lease_expired') {
          unexplainedUnknown += 1;
          example(`unexplained unknown: delivery ${d.id} attempt ${d.attempt_count} outcome ${d.last_outcome}`);
        }
        break;
      case 'accepted':
        if (sent.length === 0) {
          acceptedWithoutLedger += 1;
          example(`contradiction: delivery ${d.id} is accepted but the ledger has no entry for its key`);
        } else if (!sent.some((e) => e.provider_message_id === d.provider_message_id)) {
          acceptedPmidMismatch += 1;
          example(`contradiction: delivery ${d.id} accepted as ${d.provider_message_id}, ledger says ${sent.map((e) => e.provider_message_id).join(', ')}`);
        }
        break;
    }
    if ((d.state === 'retryable' || d.state === 'terminal') && sent.length > 0) {
      retryableOrTerminalWithLedger += 1;
      example(
        `contradiction: delivery ${d.id} is ${d.state}${d.terminal_reason ? `/${d.terminal_reason}` : ''} but the ledger accepted its key ${sent.length}x`,
      );
    }
  }

  // 2. Duplicates, 3. late submissions, and sends Herald never took in.
  let duplicateKeys = 0;
  let lateSubmissions = 0;
  let receivedAfterExpiry = 0;
  let worstLateMs = 0;
  let ledgerKeyWithoutDelivery = 0;
  for (const [key, entries] of byKey) {
    if (entries.length > 1) {
      duplicateKeys += 1;
      example(`duplicate: key ${key} accepted ${entries.length}x (delivery ${byDeliveryKey.get(key)?.id ?? '?'})`);
    }
    const d = byDeliveryKey.get(key);
    if (!d) {
      ledgerKeyWithoutDelivery += 1;
      example(`contradiction: ledger key ${key} belongs to no delivery`);
      continue;
    }
    for (const e of entries) {
      const lateBy = Date.parse(e.received_at) - Number(d.expires_at);
      if (lateBy > 0) {
        receivedAfterExpiry += 1;
        worstLateMs = Math.max(worstLateMs, lateBy);
        if (lateBy > opts.expiryAllowanceMs) lateSubmissions += 1;
        example(
          `${lateBy > opts.expiryAllowanceMs ? 'late' : 'within allowance'}: delivery ${d.id} (${d.state}) accepted by the provider ${lateBy} ms after expires_at`,
        );
      }
    }
  }

  const byOutcome: Record<string, number> = {};
  let attemptsTotal = 0;
  let lateOutcomes = 0;
  for (const r of attemptRows) {
    byOutcome[r.outcome === null ? 'open' : String(r.outcome)] = Number(r.n);
    attemptsTotal += Number(r.n);
    lateOutcomes += Number(r.late);
  }

  // For the record: how each late submission's attempt was timed (claim = attempt started_at).
  const lateIds = [...byKey.keys()].map((k) => byDeliveryKey.get(k)).filter((d): d is DeliveryRow => d !== undefined);
  const late = lateIds.filter((d) => (byKey.get(d.idempotency_key) ?? []).some((e) => Date.parse(e.received_at) > Number(d.expires_at)));
  if (late.length > 0) {
    const rows = (
      await client.query(
        `SELECT delivery_id, number, started_at::text, finished_at::text, outcome, error_code, worker_id FROM attempts
         WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, number`,
        [late.slice(0, 10).map((d) => d.id)],
      )
    ).rows as Array<{
      delivery_id: string;
      number: number;
      started_at: string;
      finished_at: string | null;
      outcome: string | null;
      error_code: string | null;
      worker_id: string;
    }>;
    for (const d of late.slice(0, 10)) {
      const received = Math.min(...(byKey.get(d.idempotency_key) ?? []).map((e) => Date.parse(e.received_at)));
      const attempts = rows
        .filter((a) => a.delivery_id === d.id)
        .map(
          (a) =>
            `#${a.number} claimed ${Number(d.expires_at) - Number(a.started_at)} ms before expiry, ${a.outcome ?? 'open'}${a.error_code ? `/${a.error_code}` : ''}, accepted by provider ${received - Number(a.started_at)} ms after claim (${a.worker_id})`,
        );
      example(`  ${d.id}: ${attempts.join('; ')}`);
    }
  }

  const byCode: Record<string, number> = {};
  for (const r of codeRows) byCode[`${r.outcome ?? 'open'}/${r.error_code}`] = Number(r.n);

  const route = opts.route ? await verifyRoute(client, deliveries, byKey, example) : null;

  const lost = { missingNotifications, wrongDeliveryCount, stuckPastExpiry, overdueDuringRun: opts.overdueDuringRun, unexplainedUnknown };
  const contradictions = { retryableOrTerminalWithLedger, acceptedWithoutLedger, acceptedPmidMismatch, ledgerKeyWithoutDelivery };
  return {
    lost: { total: Object.values(lost).reduce((a, b) => a + b, 0), ...lost },
    duplicateKeys,
    lateSubmissions,
    receivedAfterExpiry,
    worstLateMs,
    contradictions: { total: Object.values(contradictions).reduce((a, b) => a + b, 0), ...contradictions },
    deliveries: { total: deliveries.length, byState, terminalReasons, unknownSent, unknownNotSent, submittedPerLedger },
    attempts: { total: attemptsTotal, byOutcome, leasesRescued: byOutcome.lease_expired ?? 0, lateOutcomes, byCode },
    ledger: { entries: ledger.length, keys: byKey.size },
    route,
    examples,
  };
}

const bump = (record: Record<string, number>, key: string) => (record[key] = (record[key] ?? 0) + 1);

/**
 * The route scenario's check: reads every SMS delivery's attempts in order and compares the
 * accounts they used with the moves they record and with the ledgers' accounts.
 */
async function verifyRoute(
  client: pg.Client,
  deliveries: DeliveryRow[],
  byKey: ReadonlyMap<string, LedgerEntry[]>,
  example: (s: string) => void,
): Promise<RouteVerdict> {
  const sms = deliveries.filter((d) => d.channel === 'sms');
  const attempts = new Map<string, AttemptRow[]>();
  for (const a of (
    await client.query<AttemptRow>(
      `SELECT a.delivery_id, a.number, a.provider_account, a.outcome, a.error_code, a.failover_reason
       FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
       WHERE d.channel = 'sms' ORDER BY a.delivery_id, a.number`,
    )
  ).rows) {
    const list = attempts.get(a.delivery_id);
    if (list) list.push(a);
    else attempts.set(a.delivery_id, [a]);
  }
  const failovers: Record<string, number> = {};
  const failoversAfter: Record<string, number> = {};
  const finalByAccount: Record<string, number> = {};
  const ledgerByAccount: Record<string, number> = {};
  for (const entries of byKey.values()) for (const e of entries) bump(ledgerByAccount, e.account ?? '?');
  let movedDeliveries = 0;
  let unrecordedMove = 0;
  let recordedMoveNotMade = 0;
  let ledgerWithoutAttempt = 0;
  let movedAfterUnknown = 0;
  for (const d of sms) {
    bump(finalByAccount, `${d.state} ${d.provider_account}`);
    const list = attempts.get(d.id) ?? [];
    if (new Set(list.map((a) => a.provider_account)).size > 1) movedDeliveries += 1;
    list.forEach((a, i) => {
      if (a.failover_reason !== null) {
        bump(failovers, a.failover_reason);
        bump(failoversAfter, `${a.outcome}/${a.error_code}`);
        if (a.outcome === 'unknown' || a.outcome === 'lease_expired') {
          movedAfterUnknown += 1;
          example(`route: delivery ${d.id} moved after attempt ${a.number} ended ${a.outcome} (${a.failover_reason})`);
        }
      }
      // Where the next attempt went, or for the last one, where the delivery is now.
      const next = i + 1 < list.length ? list[i + 1]!.provider_account : d.provider_account;
      if (next !== a.provider_account && a.failover_reason === null) {
        unrecordedMove += 1;
        example(`route: delivery ${d.id} went from ${a.provider_account} to ${next} after attempt ${a.number} with no failover_reason`);
      }
      if (next === a.provider_account && a.failover_reason !== null) {
        recordedMoveNotMade += 1;
        example(`route: delivery ${d.id} attempt ${a.number} records a move (${a.failover_reason}) but stayed on ${next}`);
      }
    });
    const used = new Set(list.map((a) => a.provider_account));
    for (const e of byKey.get(d.idempotency_key) ?? []) {
      if (!used.has(e.account ?? null)) {
        ledgerWithoutAttempt += 1;
        example(`route: ${e.account} accepted delivery ${d.id}, none of whose attempts used it`);
      }
    }
  }
  const invisible = { unrecordedMove, recordedMoveNotMade, ledgerWithoutAttempt, movedAfterUnknown };
  const changes = (
    await client.query<{ provider_account: string; action: string; reasons: string; accepted: number; slow: number; calls: number; failures: number }>(
      'SELECT provider_account, action, reasons, accepted, slow, calls, failures FROM route_changes ORDER BY decided_at, seq',
    )
  ).rows.map(
    (c) =>
      `${c.action} ${c.provider_account}${c.reasons ? ` (${c.reasons})` : ''}: accepted ${c.accepted}, slow ${c.slow}, calls ${c.calls}, failures ${c.failures}`,
  );
  return {
    failovers,
    failoversAfter,
    movedDeliveries,
    finalByAccount,
    ledgerByAccount,
    changes,
    invisible: { total: Object.values(invisible).reduce((x, y) => x + y, 0), ...invisible },
  };
}
