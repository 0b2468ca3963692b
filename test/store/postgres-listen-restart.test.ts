/**
 * LISTEN across a real database restart (issue: "LISTEN that survives a database restart"): the
 * store's two listeners (ready deliveries for workers, offers for phones) hear NOTIFY again after
 * the server was down for longer than one reconnect pause, and the outage is logged once (the
 * fall back to polling) and the recovery once. Its own embedded PostgreSQL, stopped and started
 * on the same data directory: the suite's server (or CI's, with DATABASE_URL) serves other files
 * at the same time and cannot be restarted. test/store/postgres-listen.test.ts covers the same
 * loop on whichever server the suite uses, by ending the listening backend and failing the
 * first reconnects.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../bench/embedded-postgres.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { StoreLogger } from '../../src/store/store-log.js';

const SCHEMA = 'listen_restart';
let embedded: EmbeddedServer;
let url: string;
let store: PostgresStore;
const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
const log: StoreLogger = {
  warn: (fields, message) => void lines.push({ level: 'warn', fields, message }),
  info: (fields, message) => void lines.push({ level: 'info', fields, message }),
};

beforeAll(async () => {
  // Kept across stop() and start(): the restart is the test.
  embedded = await startEmbeddedPostgres({ prefix: 'herald-listen-restart-', persistent: true });
  url = embedded.url;
  store = openPostgresStore({ connectionString: url, schema: SCHEMA, logger: log });
  await store.migrate();
}, 120_000);

afterAll(async () => {
  await store?.close();
  await embedded?.stop();
});

/** NOTIFY on the ready channel from a connection of its own, as another process's commit does. */
async function notifyReady(account: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('SELECT pg_notify($1, $2)', [`herald_ready_${SCHEMA}`, account]);
  } finally {
    await c.end();
  }
}

it('workers are woken and phones signalled again after the server was down longer than one retry', async () => {
  const ready: string[] = [];
  const offers: string[] = [];
  const stopReady = await store.listenForReady((account) => ready.push(account));
  const stopOffers = await store.devices.listenForOffers((deviceId) => offers.push(deviceId));
  try {
    await notifyReady('acct-before');
    await store.devices.signalOffers(['dev-before'], 'other-process');
    await expect.poll(() => [ready, offers], { timeout: 10_000 }).toEqual([['acct-before'], ['dev-before']]);

    await embedded.server.stop();
    // Down for longer than one reconnect pause (1 s): the first tries fail.
    await new Promise((r) => setTimeout(r, 2_500));
    await embedded.server.start();

    // Sent until heard: the listeners reconnect on their own pause.
    await expect
      .poll(
        async () => {
          await notifyReady('acct-after').catch(() => {});
          await store.devices.signalOffers(['dev-after'], 'other-process').catch(() => {});
          return ready.includes('acct-after') && offers.includes('dev-after');
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(true);

    // Per listener: one line for the outage, one for the recovery, whatever the number of tries.
    const listenLines = lines.filter((l) => l.message.includes('LISTEN'));
    const byChannel = (c: string) => listenLines.filter((l) => l.fields.channel === c).map((l) => [l.level, l.message]);
    const channels = [...new Set(listenLines.map((l) => String(l.fields.channel)))];
    expect(channels).toHaveLength(2);
    for (const c of channels) {
      expect(byChannel(c)).toEqual([
        ['warn', 'store: LISTEN connection failed; wake-ups fall back to polling until it is back'],
        ['info', 'store: LISTEN connection restored; wake-ups resume'],
      ]);
    }
    const restored = listenLines.filter((l) => l.level === 'info');
    for (const l of restored) expect(l.fields.failedTries).toBeGreaterThanOrEqual(1);
  } finally {
    await stopReady();
    await stopOffers();
  }
}, 120_000);
