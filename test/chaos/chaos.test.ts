/**
 * The chaos run, small: 2 `herald worker` processes and 1 `herald api` on the suite's
 * PostgreSQL (a fresh schema), ~1,500 notifications over HTTP, and a worker SIGKILLed (and
 * restarted) every 1-3 s. It is the route scenario (issue 27): SMS has two accounts in one route,
 * each on a `herald sandbox` of its own with probability faults (5xx and 429s without Retry-After
 * on the primary move deliveries to the backup; the backup's 5xx move them back). After the
 * system settles, the database and both ledgers must agree: nothing lost, no key accepted twice
 * (by either account or both, every account waiting for evidence after an `unknown`), nothing
 * accepted after expiry, no contradictions, and every failover visible on its delivery. One run
 * covers both: the other channels keep one account each, as before routes. Runs the built dist/
 * through bin/herald.js (`npm run build` first). `npm run chaos` is the full-size version;
 * docs/chaos.md explains every number. CHAOS_SEED=N reproduces a run's faults and load mix.
 */
import { afterAll, expect, inject, it } from 'vitest';
import {
  BACKUP_SMS_ACCOUNT,
  defaultOptions,
  formatReport,
  killAllChildren,
  liveChildren,
  ROUTE_BACKUP_FAULTS,
  ROUTE_PRIMARY_FAULTS,
  runChaos,
} from '../../bench/chaos.js';
import { requireBuild } from '../../bench/chaos/processes.js';

requireBuild();

afterAll(async () => {
  // Whatever happened (an assertion, a timeout), no Herald process outlives the file.
  await killAllChildren();
});

it('loses nothing, sends nothing twice or late, never contradicts the providers and shows every failover while workers are SIGKILLed', async () => {
  const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) >>> 0 : undefined;
  const report = await runChaos(
    defaultOptions({
      databaseUrl: inject('pgUrl'),
      databaseSource: inject('pgSource'),
      notifications: 1_500,
      workers: 2,
      faults: ROUTE_PRIMARY_FAULTS,
      route: { backupFaults: ROUTE_BACKUP_FAULTS },
      ...(seed !== undefined ? { seed } : {}),
      killIntervalMs: [1_000, 3_000],
      // Keep killing past the load if it was quick: the run cannot pass without real kills.
      minKills: 3,
      // Generous bounds: the suite runs other files beside this one on 2 cores.
      deadlineMs: 200_000,
      settleTimeoutMs: 90_000,
      keepSchema: 'on_failure',
      log: () => {},
    }),
  );
  const summary = formatReport(report);
  console.log(summary);

  expect(report.verdict, summary).not.toBeNull();
  const v = report.verdict!;
  expect(report.intake.accepted202, summary).toBe(1_500);
  expect(report.settled, summary).toBe(true);
  expect(v.lost.total, summary).toBe(0);
  expect(v.duplicateKeys, summary).toBe(0);
  expect(v.lateSubmissions, summary).toBe(0);
  expect(v.contradictions.total, summary).toBe(0);
  expect(v.route?.invisible.total, summary).toBe(0);
  // Not vacuous: workers really died, and Herald really had to say "unknown" (the reconciler
  // then settles those by look-up, so the attempts say it, not the final states).
  expect(report.kills, summary).toBeGreaterThanOrEqual(1);
  expect(v.attempts.leasesRescued + (v.attempts.byOutcome.unknown ?? 0), summary).toBeGreaterThan(0);
  expect(v.ledger.entries, summary).toBeGreaterThan(1_000);
  // Deliveries really moved, and the backup really sent some of them.
  expect(v.route!.movedDeliveries, summary).toBeGreaterThan(0);
  expect(v.route!.ledgerByAccount[BACKUP_SMS_ACCOUNT] ?? 0, summary).toBeGreaterThan(0);
  expect(report.ok, summary).toBe(true);
  expect(liveChildren()).toBe(0);
}, 240_000);
