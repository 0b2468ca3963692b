/**
 * What every table module of the PostgreSQL driver works over: the pool, its named statements
 * (prepared per connection under a schema-qualified name), transactions, and the NOTIFY that
 * wakes workers in other processes after a commit that made work ready.
 */
import pg from 'pg';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ContentCipher, openContent, sealContent, type SealBinding } from '../content-cipher.js';
import { loadNamedSql } from '../named-sql.js';
import type { Row } from '../rows.js';

const queries = join(dirname(fileURLToPath(import.meta.url)), 'queries');

export type Client = pg.PoolClient;

/** The pool and statements one PostgreSQL store and all its parts share. */
export class PostgresContext {
  private readonly sql = loadNamedSql(queries);
  /** NOTIFY channel, per schema, so stores sharing a server (tests) do not wake each other. */
  readonly readyChannel: string;
  private closed = false;
  /** Per provider account: the NOTIFY loop in flight, and whether a commit since asks for one more. */
  private readonly notifying = new Map<string, Promise<void>>();
  private readonly notifyAgain = new Set<string>();

  constructor(
    readonly pool: pg.Pool,
    readonly schema: string,
    /** Seals content on write and opens it on read (content-cipher.ts); null: content in clear. */
    readonly cipher: ContentCipher | null = null,
  ) {
    this.readyChannel = `herald_ready_${schema}`;
  }

  /** The content a driver writes into a sealed column (sealed, bound to its row, when a cipher is configured). */
  sealContent(content: unknown, binding: SealBinding): string {
    return sealContent(this.cipher, content, binding);
  }

  /**
   * `row` with its `content_json` opened back to JSON text, for the row readers (rows.ts). The
   * content is `table`'s (notifications or campaigns) of the row whose id is in `idColumn`.
   */
  openRow<T extends Row>(row: T, table: 'notifications' | 'campaigns', idColumn = 'id'): T {
    if (row.content_json === undefined || row.content_json === null) return row;
    const binding = { table, column: 'content_json', rowId: String(row[idColumn]) };
    return { ...row, content_json: JSON.stringify(openContent(this.cipher, row.content_json, binding)) };
  }

  private text(name: string): string {
    const t = this.sql.get(name);
    if (!t) throw new Error(`no SQL statement named ${name}`);
    return t;
  }

  /** Runs the named statement (queries/*.sql) on `client` (a transaction's) or the pool, and returns its rows. */
  async q(name: string, params: unknown[] = [], client: pg.Pool | Client = this.pool): Promise<Row[]> {
    const r = await client.query({ name: `${this.schema}.${name}`, text: this.text(name), values: params });
    return r.rows as Row[];
  }

  /**
   * Runs the named statement unprepared, so PostgreSQL plans it with this call's parameters (a
   * custom plan) instead of reusing a generic one. For statements whose best plan depends on
   * which filters are NULL (the delivery list): a generic plan cannot fold `$4 IS NULL OR ...`
   * and, estimating every filter as selective, walks the primary key past a million rows
   * (bench/list-deliveries.ts: 50 ms at 20,000 rows). Planning costs ~1 ms instead.
   */
  async qPlanned(name: string, params: unknown[] = []): Promise<Row[]> {
    const r = await this.pool.query({ text: this.text(name), values: params });
    return r.rows as Row[];
  }

  /** Runs the named statement on the pool and returns how many rows it changed (for statements without RETURNING). */
  async count(name: string, params: unknown[], client: pg.Pool | Client = this.pool): Promise<number> {
    const r = await client.query({ name: `${this.schema}.${name}`, text: this.text(name), values: params });
    return r.rowCount ?? 0;
  }

  /**
   * Runs `fn` in BEGIN … COMMIT on one connection; rolls back and rethrows when it throws.
   * `asyncCommit`: the COMMIT returns without waiting for its WAL flush (synchronous_commit off
   * for this transaction alone), for writes a crash may lose safely (the limiter's reservations).
   */
  async tx<T>(fn: (c: Client) => Promise<T>, opts: { asyncCommit?: boolean } = {}): Promise<T> {
    const c = await this.pool.connect();
    try {
      // One round trip for both: the simple protocol runs several statements without parameters.
      await c.query(opts.asyncCommit ? 'BEGIN; SET LOCAL synchronous_commit TO off' : 'BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }

  /**
   * Wakes workers in other processes after an intake commit. Coalesced per account: while a
   * NOTIFY is in flight, later commits ask for one more, sent when it returns, so every commit
   * is followed by a NOTIFY issued after it, at most two per account at a time instead of one
   * per notification. Best effort, as before: a worker that misses one finds the work by polling.
   */
  wakeListeners(accounts: string[]): void {
    for (const account of accounts) {
      if (this.notifying.has(account)) {
        this.notifyAgain.add(account);
        continue;
      }
      const run = (async () => {
        do {
          this.notifyAgain.delete(account);
          await this.q('ready_notify', [this.readyChannel, account]).catch(() => {});
        } while (this.notifyAgain.has(account) && !this.closed);
        this.notifying.delete(account);
      })();
      this.notifying.set(account, run);
    }
  }

  /** Ends the pool once, after the NOTIFYs in flight; safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.notifying.values()]);
    await this.pool.end();
  }
}
