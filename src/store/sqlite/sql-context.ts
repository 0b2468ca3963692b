/**
 * What every table module of the SQLite driver works over: the connection, its named
 * statements (prepared once, on first use), the executor the shared parts run on
 * (sql-executor.ts) and intake's group commit. better-sqlite3 is synchronous, so a transaction
 * runs to completion before anything else does: one never spans an await, and the parts need no
 * locking of their own. A shared part's body is driven here synchronously, inside the
 * transaction when it is one.
 */
import Database from 'better-sqlite3';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PURPOSES, type Purpose } from '../../domain/index.js';
import { type ContentCipher, openContent, sealContent, type SealBinding } from '../content-cipher.js';
import { StoreConflictError } from '../core-store.js';
import { loadNamedSql } from '../named-sql.js';
import type { Row } from '../rows.js';
import { errorFields, QUIET_STORE_LOGGER, type StoreLogger } from '../store-log.js';
import { type Body, driveSync, type Executor, ListParam, type Params, type Step } from '../sql-executor.js';

const queries = join(dirname(fileURLToPath(import.meta.url)), 'queries');

interface PendingWrite {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The connection and statements one SQLite store and all its parts share. */
export class SqliteContext implements Executor {
  private readonly sql = loadNamedSql(queries, 'sqlite');
  private readonly statements = new Map<string, Database.Statement>();
  private pendingWrites: PendingWrite[] = [];

  /** Seals content on write and opens it on read (content-cipher.ts); null: content in clear. */
  constructor(
    readonly db: Database.Database,
    readonly cipher: ContentCipher | null = null,
    /** Errors the store handles itself (store-log.ts). */
    readonly log: StoreLogger = QUIET_STORE_LOGGER,
  ) {}

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

  /** The named statement (queries/*.sql), prepared on first use; throws for a name no file defines. */
  stmt(name: string): Database.Statement {
    let s = this.statements.get(name);
    if (!s) {
      const named = this.sql.get(name);
      if (!named) throw new Error(`no SQL statement named ${name}`);
      s = this.db.prepare(named.text);
      this.statements.set(name, s);
    }
    return s;
  }

  async one(name: string, params: Params = {}): Promise<Row | undefined> {
    return this.stmt(name).get(bind(params)) as Row | undefined;
  }

  async all(name: string, params: Params = {}): Promise<Row[]> {
    return this.stmt(name).all(bind(params)) as Row[];
  }

  allPlanned(name: string, params: Params = {}): Promise<Row[]> {
    return this.all(name, params);
  }

  async count(name: string, params: Params = {}): Promise<number> {
    return this.stmt(name).run(bind(params)).changes;
  }

  async run<T>(body: () => Body<T>): Promise<T> {
    return this.drive(body());
  }

  async transaction<T>(body: () => Body<T>): Promise<T> {
    return this.write(() => this.drive(body()));
  }

  async reads<T>(body: () => Body<T>): Promise<T> {
    // DEFERRED: a read transaction, one snapshot for every statement, and no write lock.
    return this.db.transaction(() => this.drive(body())).deferred();
  }

  snapshot<T>(body: () => Body<T>): Promise<T> {
    return this.reads(body);
  }

  /** One SQLite process per file: intake wakes its own workers in memory (delivery/wake-signal.ts). */
  wake(): void {}

  isConflict(err: unknown): boolean {
    return isConstraintError(err);
  }

  /** Runs a body synchronously, here and now (inside the caller's transaction, if any). */
  drive<T>(body: Body<T>): T {
    return driveSync(body, (step) => this.exec(step));
  }

  private exec(step: Step): unknown {
    if (step.want === 'allOf') return step.steps.map(([name, params]) => this.stmt(name).all(bind(params)));
    const s = this.stmt(step.name);
    const params = bind(step.params);
    if (step.want === 'one') return s.get(params);
    if (step.want === 'all') return s.all(params);
    return s.run(params).changes;
  }

  /**
   * Runs `fn` in one `BEGIN IMMEDIATE … COMMIT`: IMMEDIATE takes the write lock at BEGIN, so a
   * read-then-write inside cannot be refused with SQLITE_BUSY halfway by another process.
   */
  write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /**
   * Group commit for intake writes (createNotification, reserveIdempotencyKey): every such write
   * issued in the same turn of the event loop (e.g. by the requests one poll phase delivered) runs
   * in one `BEGIN IMMEDIATE … COMMIT`, so N writes cost one fsync instead of N. Each runs in its
   * own savepoint, in arrival order: a conflict rolls back that write alone and rejects only its
   * caller. Every caller's promise settles after the shared COMMIT, so nothing is acknowledged
   * before it is durable.
   */
  grouped<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pendingWrites.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (this.pendingWrites.length === 1) setImmediate(() => this.flushWrites());
    });
  }

  /** Commits the writes waiting for their group now (close() calls it, so none is left unanswered). */
  flushWrites(): void {
    const group = this.pendingWrites;
    this.pendingWrites = [];
    if (group.length === 0) return;
    if (group.length === 1) return this.settleAlone(group[0]!);
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db
        .transaction(() => {
          for (const item of group) {
            try {
              // A nested better-sqlite3 transaction is a SAVEPOINT: rolled back alone on error.
              outcomes.push({ ok: true, value: this.db.transaction(item.run)() });
            } catch (error) {
              // A constraint (or our own conflict) stays inside its savepoint; anything else
              // (I/O, full disk) may have ended the transaction: give up on grouping.
              if (!(error instanceof StoreConflictError || isConstraintError(error))) throw error;
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (err) {
      // The group did not commit: run each alone, so every caller gets the answer it would have
      // had without grouping (its own error included); the group's error is logged once here.
      this.log.warn({ writes: group.length, ...errorFields(err) }, 'store: a group commit failed; its writes are retried one by one');
      for (const item of group) this.settleAlone(item);
      return;
    }
    group.forEach((item, i) => {
      const o = outcomes[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.error);
    });
  }

  private settleAlone(item: PendingWrite): void {
    try {
      item.resolve(this.db.transaction(item.run).immediate());
    } catch (err) {
      item.reject(err);
    }
  }
}

/** Named parameters as better-sqlite3 binds them: a boolean as 1 or 0, a list as JSON text (for `json_each`). */
function bind(params: Params): Params {
  let out: Record<string, unknown> | null = null;
  for (const key in params) {
    const v = params[key];
    if (typeof v === 'boolean' || v instanceof ListParam) {
      out ??= { ...params };
      out[key] = typeof v === 'boolean' ? (v ? 1 : 0) : JSON.stringify(v.values);
    }
  }
  return out ?? params;
}

/** True for a SQLite constraint violation (unique, check, foreign key, ...). */
export function isConstraintError(err: unknown): boolean {
  return err instanceof Database.SqliteError && err.code.startsWith('SQLITE_CONSTRAINT');
}

/** The @otp … @alert flags of the per-lane statements: 1 for the given purposes (all when absent). */
export function purposeFlags(purposes: readonly Purpose[] | undefined): Record<Purpose, number> {
  const on = new Set<Purpose>(purposes ?? PURPOSES);
  return Object.fromEntries(PURPOSES.map((p) => [p, on.has(p) ? 1 : 0])) as Record<Purpose, number>;
}
