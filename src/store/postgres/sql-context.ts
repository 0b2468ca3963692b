/**
 * What every table module of the PostgreSQL driver works over: the pool, its named statements
 * (prepared per connection under a schema-qualified name), the executor the shared parts run on
 * (sql-executor.ts: named parameters bound to `$n` by each statement's header), transactions,
 * and the NOTIFY that wakes workers in other processes after a commit that made work ready.
 */
import pg from 'pg';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ContentCipher, openContent, sealContent, type SealBinding } from '../content-cipher.js';
import { loadNamedSql, type NamedStatement } from '../named-sql.js';
import type { Row } from '../rows.js';
import { errorFields, QUIET_STORE_LOGGER, type StoreLogger } from '../store-log.js';
import { type Body, driveAsync, type Executor, ListParam, type Params, type Step, type TransactionOptions } from '../sql-executor.js';

const queries = join(dirname(fileURLToPath(import.meta.url)), 'queries');

export type Client = pg.PoolClient;

/** The pool and statements one PostgreSQL store and all its parts share. */
export class PostgresContext implements Executor {
  private readonly sql = loadNamedSql(queries, 'postgres');
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
    /** Errors the store handles itself (store-log.ts). */
    readonly log: StoreLogger = QUIET_STORE_LOGGER,
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

  private named(name: string): NamedStatement {
    const t = this.sql.get(name);
    if (!t) throw new Error(`no SQL statement named ${name}`);
    return t;
  }

  private text(name: string): string {
    return this.named(name).text;
  }

  /** The positional values of `name` for named `params`, in its header's `$n` order (a list becomes an array). */
  values(name: string, params: Params): unknown[] {
    return this.named(name).params.map((p) => {
      if (!(p in params)) throw new Error(`statement ${name}: missing named parameter ${p}`);
      const v = params[p];
      return v instanceof ListParam ? [...v.values] : v;
    });
  }

  /** Runs the named statement with named parameters on `client` (a transaction's) or the pool; returns pg's result. */
  private query(name: string, params: Params, client: pg.Pool | Client): Promise<pg.QueryResult> {
    return client.query({ name: `${this.schema}.${name}`, text: this.text(name), values: this.values(name, params) });
  }

  async one(name: string, params: Params = {}): Promise<Row | undefined> {
    return (await this.query(name, params, this.pool)).rows[0] as Row | undefined;
  }

  async all(name: string, params: Params = {}): Promise<Row[]> {
    return (await this.query(name, params, this.pool)).rows as Row[];
  }

  async count(name: string, params: Params = {}): Promise<number> {
    return (await this.query(name, params, this.pool)).rowCount ?? 0;
  }

  run<T>(body: () => Body<T>): Promise<T> {
    return this.drive(body(), this.pool);
  }

  transaction<T>(body: () => Body<T>, options: TransactionOptions = {}): Promise<T> {
    return this.tx((c) => this.drive(body(), c), options);
  }

  reads<T>(body: () => Body<T>): Promise<T> {
    return this.drive(body(), this.pool);
  }

  /** REPEATABLE READ: every read of the body from one snapshot. */
  snapshot<T>(body: () => Body<T>): Promise<T> {
    return this.tx((c) => this.drive(body(), c), { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' });
  }

  wake(accounts: Iterable<string>): void {
    this.wakeListeners([...accounts]);
  }

  isConflict(err: unknown): boolean {
    return (err as { code?: string } | null)?.code === '23505';
  }

  /** Runs a body, awaiting each statement on `client` (a transaction's) or the pool. */
  drive<T>(body: Body<T>, client: pg.Pool | Client): Promise<T> {
    return driveAsync(body, (step) => this.exec(step, client));
  }

  private async exec(step: Step, client: pg.Pool | Client): Promise<unknown> {
    if (step.want === 'allOf') {
      // Side by side on the pool (a connection each); one after the other on a transaction's connection.
      if (client === this.pool) return Promise.all(step.steps.map(async ([name, params]) => (await this.query(name, params, client)).rows as Row[]));
      const out: Row[][] = [];
      for (const [name, params] of step.steps) out.push((await this.query(name, params, client)).rows as Row[]);
      return out;
    }
    const r = await this.query(step.name, step.params, client);
    if (step.want === 'one') return r.rows[0];
    if (step.want === 'all') return r.rows;
    return r.rowCount ?? 0;
  }

  /** Runs the named statement (queries/*.sql) with positional parameters on `client` (a transaction's) or the pool, and returns its rows. */
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
  async allPlanned(name: string, params: Params = {}): Promise<Row[]> {
    const r = await this.pool.query({ text: this.text(name), values: this.values(name, params) });
    return r.rows as Row[];
  }

  /** Runs the named statement with positional parameters and returns how many rows it changed. */
  async qCount(name: string, params: unknown[], client: pg.Pool | Client = this.pool): Promise<number> {
    const r = await client.query({ name: `${this.schema}.${name}`, text: this.text(name), values: params });
    return r.rowCount ?? 0;
  }

  /**
   * Runs `fn` in BEGIN … COMMIT on one connection; rolls back and rethrows when it throws.
   * `asyncCommit`: the COMMIT returns without waiting for its WAL flush (synchronous_commit off
   * for this transaction alone), for writes a crash may lose safely (the limiter's reservations).
   */
  async tx<T>(fn: (c: Client) => Promise<T>, opts: TransactionOptions & { begin?: string } = {}): Promise<T> {
    const c = await this.pool.connect();
    try {
      // One round trip for both: the simple protocol runs several statements without parameters.
      const begin = opts.begin ?? 'BEGIN';
      await c.query(opts.asyncCommit ? `${begin}; SET LOCAL synchronous_commit TO off` : begin);
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      // The caller gets `err`; a ROLLBACK that fails too (a broken connection) is only logged.
      await c.query('ROLLBACK').catch((e: unknown) => this.log.warn(errorFields(e), 'store: ROLLBACK after a failed transaction failed'));
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
          await this.q('ready_notify', [this.readyChannel, account]).catch((err: unknown) =>
            this.log.warn(
              { providerAccount: account, ...errorFields(err) },
              'store: NOTIFY of ready deliveries failed; workers elsewhere find them by polling',
            ),
          );
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
