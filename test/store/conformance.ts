/**
 * The Store conformance suite (River's `riverdrivertest`): every driver runs exactly these
 * tests through the Store contract only, with no SQL and no driver internals. Time is
 * always passed in; nothing sleeps. Each test gets a fresh, migrated, isolated store.
 *
 * The core contract's cases live in one file per area, mirroring `src/store/parts/` and the
 * drivers' files of the same names: `core-conformance.ts` (migrations, tenants and keys),
 * `idempotency-conformance.ts`, `notifications-conformance.ts` (createNotification,
 * listDeliveries), `claims-conformance.ts`, `transitions-conformance.ts` (with the sweeper's
 * reads) and `review-conformance.ts`; what they share is in `core-support.ts`. The named parts
 * have their own files (`evidence-conformance.ts`, ...), which each driver's test runs too.
 */
import { claimsConformance } from './claims-conformance.js';
import { coreConformance } from './core-conformance.js';
import { idempotencyConformance } from './idempotency-conformance.js';
import { notificationsConformance } from './notifications-conformance.js';
import { reviewConformance } from './review-conformance.js';
import { transitionsConformance } from './transitions-conformance.js';
import type { Store } from '../../src/store/store.js';

/** What a driver's factory hands the suite for one test. */
export interface StoreFixture {
  /** A migrated store on a database no other test uses. */
  store: Store;
  /** Closes every store opened for this test (peers included) and removes the database. */
  cleanup(): Promise<void>;
  /**
   * Opens another Store on the same database, not migrated, as a second process would.
   * Optional in the type so the factory signature stays `{ store, cleanup }`, but the
   * two-process tests fail without it: every driver is expected to provide it.
   */
  openPeer?(): Promise<Store>;
}

/** Runs the core contract against one driver, in the order the cases were first written. */
export function storeConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  coreConformance(name, makeStore);
  idempotencyConformance(name, makeStore);
  notificationsConformance(name, makeStore);
  claimsConformance(name, makeStore);
  transitionsConformance(name, makeStore);
  reviewConformance(name, makeStore);
}
