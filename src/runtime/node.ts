/**
 * Assembles a running Herald from configuration: store, provider adapters, intake, HTTP app,
 * worker and sweeper. `herald start` runs every role in one process; `herald api` and
 * `herald worker` run one each. Tests use the same assembly.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { HeraldConfig } from '../config/config.js';
import type { Random } from '../domain/index.js';
import { DeliveryWorker } from '../delivery/worker.js';
import { Sweeper } from '../delivery/sweeper.js';
import { WakeSignal } from '../delivery/wake-signal.js';
import { buildApp } from '../http/app.js';
import { IntakeService } from '../intake/intake-service.js';
import type { ProviderAccountConfig, ProviderAdapter } from '../providers/provider.js';
import { createSandboxAdapter } from '../providers/sandbox/adapter.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';

export type Role = 'api' | 'worker';

export interface HeraldNode {
  store: Store;
  app: FastifyInstance | null;
  worker: DeliveryWorker | null;
  sweeper: Sweeper | null;
  adapters: Map<string, ProviderAdapter>;
  /** Starts listening (api role) and the background loops (worker role). Returns the API URL, if any. */
  start(): Promise<string | null>;
  /** Graceful stop: no new requests or claims, in-flight calls finish and are recorded. */
  close(): Promise<void>;
}

export interface NodeOptions {
  config: HeraldConfig;
  roles: Role[];
  logger: Logger;
  clock?: Clock;
  random?: Random;
  store?: Store;
  workerId?: string;
}

/** The SQLite file inside a data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'herald.db');
}

/** Opens the store a configuration names and applies migrations. */
export async function openStore(config: HeraldConfig): Promise<Store> {
  const store = openSqliteStore({ path: databasePath(config.data_dir), synchronous: config.database.synchronous });
  await store.migrate();
  return store;
}

/** Builds the adapter for one configured provider account. */
export function createAdapter(account: ProviderAccountConfig): ProviderAdapter {
  switch (account.kind) {
    case 'sandbox':
      return createSandboxAdapter(account);
  }
}

/** Assembles the requested roles; nothing listens or loops until `start()`. */
export async function createHeraldNode(opts: NodeOptions): Promise<HeraldNode> {
  const { config, logger } = opts;
  const clock = opts.clock ?? systemClock;
  const store = opts.store ?? (await openStore(config));
  const wake = new WakeSignal();
  const adapters = new Map<string, ProviderAdapter>();
  let app: FastifyInstance | null = null;
  let worker: DeliveryWorker | null = null;
  let sweeper: Sweeper | null = null;

  if (opts.roles.includes('api')) {
    const intake = new IntakeService({
      store,
      accounts: config.provider_accounts,
      clock,
      wake: (account) => wake.notify(account),
    });
    app = await buildApp({ store, intake, logger: process.env.HERALD_LOG_REQUESTS === '1' ? logger : false });
  }
  if (opts.roles.includes('worker')) {
    for (const account of config.provider_accounts) adapters.set(account.id, createAdapter(account));
    worker = new DeliveryWorker({
      store,
      adapters,
      clock,
      logger,
      wake,
      workerId: opts.workerId ?? `${hostname()}:${process.pid}`,
      batchSize: config.worker.batch_size,
      loopsPerAccount: config.worker.loops_per_account,
      leaseMs: config.worker.lease_ms,
      pollIntervalMs: config.worker.poll_interval_ms,
      ...(opts.random ? { random: opts.random } : {}),
    });
    sweeper = new Sweeper({ store, clock, logger, intervalMs: config.worker.sweep_interval_ms });
  }

  return {
    store,
    app,
    worker,
    sweeper,
    adapters,
    async start() {
      worker?.start();
      sweeper?.start();
      if (!app) return null;
      return app.listen({ host: config.host, port: config.port });
    },
    async close() {
      // Order matters: stop taking requests, then let in-flight calls finish and be recorded,
      // then release sockets and the database.
      await app?.close();
      await worker?.stop();
      await sweeper?.stop();
      await Promise.allSettled([...adapters.values()].map((a) => a.close()));
      if (!opts.store) await store.close();
    },
  };
}
