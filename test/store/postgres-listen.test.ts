/**
 * The PostgreSQL LISTEN connection (src/store/postgres/listen.ts) that wakes workers and phones
 * across processes: a connection that fails is logged once and replaced, and a replacement that
 * cannot connect yet is tried again until one does (before, one failed reconnect ended the
 * listening for good, silently); the recovery is logged once too.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { listen } from '../../src/store/postgres/listen.js';
import type { StoreLogger } from '../../src/store/store-log.js';
import { pgUrl } from '../helpers/postgres.js';

function recorder(): StoreLogger & { lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> } {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  return {
    lines,
    warn: (fields, message) => void lines.push({ level: 'warn', fields, message }),
    info: (fields, message) => void lines.push({ level: 'info', fields, message }),
  };
}

/** Sends NOTIFY on `channel` from a connection of its own. */
async function notify(channel: string, payload: string): Promise<void> {
  const c = new pg.Client({ connectionString: pgUrl() });
  await c.connect();
  try {
    await c.query('SELECT pg_notify($1, $2)', [channel, payload]);
  } finally {
    await c.end();
  }
}

/** Ends the server side of the connection listening on `channel`, as a server restart would. */
async function terminateListener(channel: string): Promise<void> {
  const c = new pg.Client({ connectionString: pgUrl() });
  await c.connect();
  try {
    const r = await c.query(`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE query = $1`, [`LISTEN ${channel}`]);
    expect(r.rows.map((x: { done: boolean }) => x.done)).toEqual([true]);
  } finally {
    await c.end();
  }
}

describe('postgres LISTEN connection', () => {
  it('replaces a connection the server ended, logs it once without payloads, and keeps delivering', async () => {
    const channel = `herald_listen_test_${process.pid}_a`;
    const log = recorder();
    const got: string[] = [];
    const stop = await listen({ channel, onPayload: (p) => got.push(p), log, connect: () => new pg.Client({ connectionString: pgUrl() }), retryMs: 20 });
    try {
      await notify(channel, 'acct-1');
      await expect.poll(() => got, { timeout: 5_000 }).toEqual(['acct-1']);
      await terminateListener(channel);
      await expect.poll(() => log.lines.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(1);
      // Once listening again, a notification arrives (sent until one does: the new LISTEN may lag the first tries).
      await expect
        .poll(
          async () => {
            await notify(channel, 'acct-2');
            return got.includes('acct-2');
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      expect(log.lines[0]!.message).toMatch(/LISTEN connection failed/);
      expect(log.lines[0]!.fields).toMatchObject({ channel, error: { code: '57P01' } });
      expect(JSON.stringify(log.lines)).not.toContain('acct-');
    } finally {
      await stop();
    }
  });

  it('tries again while replacements cannot connect, until one does; the outage is logged once and so is the recovery', async () => {
    const channel = `herald_listen_test_${process.pid}_b`;
    const log = recorder();
    const got: string[] = [];
    let made = 0;
    // Replacements 2 to 4 point at a port nothing listens on, as if the server were still down.
    const connect = () => {
      made += 1;
      return new pg.Client({ connectionString: made >= 2 && made <= 4 ? 'postgres://nobody@127.0.0.1:1/none' : pgUrl() });
    };
    const stop = await listen({ channel, onPayload: (p) => got.push(p), log, connect, retryMs: 20 });
    try {
      await terminateListener(channel);
      await expect
        .poll(
          async () => {
            await notify(channel, 'again');
            return got.includes('again');
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      expect(made).toBe(5);
      expect(log.lines.map((l) => [l.level, l.message])).toEqual([
        ['warn', 'store: LISTEN connection failed; wake-ups fall back to polling until it is back'],
        ['info', 'store: LISTEN connection restored; wake-ups resume'],
      ]);
      expect(log.lines[1]!.fields).toEqual({ channel, failedTries: 3 });
    } finally {
      await stop();
    }
  });
});
