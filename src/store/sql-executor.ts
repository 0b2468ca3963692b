/**
 * One way for a store method to run named statements on either driver, so that a method whose
 * statements are the same in both dialects is written once (src/store/parts/).
 *
 * The difficulty it solves: better-sqlite3 is synchronous and a SQLite transaction must never
 * span an await (sqlite/sql-context.ts), while pg is asynchronous and a PostgreSQL transaction
 * is a connection held across awaits. So a method's body is a generator over statements: it
 * yields each statement (`const row = yield* one('template_get', { tenant_id, id })`) and gets
 * its result back. The SQLite executor runs the body synchronously, inside `BEGIN IMMEDIATE`
 * when it is a transaction; the PostgreSQL executor awaits each statement, on one connection
 * inside `BEGIN … COMMIT` when it is a transaction. Single statements need no body: `x.one`,
 * `x.all` and `x.count` run one on its own.
 *
 * Parameters are named (SQLite binds `@name`; PostgreSQL binds `$n` in the order its statement
 * header names them, see named-sql.ts). Two kinds of value differ by dialect and are converted by
 * the executor: a boolean (SQLite: 1 or 0) and a `list(...)` (SQLite: JSON text for `json_each`;
 * PostgreSQL: an array for `= ANY` or `unnest`).
 */
import type { ContentCipher, SealBinding } from './content-cipher.js';
import type { Row } from './rows.js';

/** A statement's named parameters. */
export type Params = Readonly<Record<string, unknown>>;

/** A list-valued parameter: JSON text in SQLite, an array in PostgreSQL. */
export class ListParam {
  constructor(readonly values: readonly unknown[]) {}
}

/** Marks `values` as one list-valued parameter. */
export const list = (values: readonly unknown[]): ListParam => new ListParam(values);

/** One statement a body asks its driver to run, and what it wants back. */
export type Step =
  | { readonly want: 'one' | 'all' | 'count'; readonly name: string; readonly params: Params }
  | { readonly want: 'allOf'; readonly steps: ReadonlyArray<readonly [name: string, params: Params]> };

/** A store method's body: yields statements, is handed their results, returns the method's answer. */
export type Body<T> = Generator<Step, T, unknown>;

/** The statement's first row, or undefined when it returned none. */
export function* one(name: string, params: Params = {}): Body<Row | undefined> {
  return (yield { want: 'one', name, params }) as Row | undefined;
}

/** Every row the statement returned. */
export function* all(name: string, params: Params = {}): Body<Row[]> {
  return (yield { want: 'all', name, params }) as Row[];
}

/** How many rows the statement changed (for RETURNING statements in PostgreSQL: rows returned). */
export function* count(name: string, params: Params = {}): Body<number> {
  return (yield { want: 'count', name, params }) as number;
}

/**
 * Several reads' rows, in order. PostgreSQL runs them side by side on the pool when outside a
 * transaction (one connection each); SQLite runs them one after the other.
 */
export function* allOf(steps: ReadonlyArray<readonly [name: string, params: Params]>): Body<Row[][]> {
  return (yield { want: 'allOf', steps }) as Row[][];
}

/** Options of a transaction. */
export interface TransactionOptions {
  /**
   * PostgreSQL: the COMMIT returns without waiting for its WAL flush (synchronous_commit off for
   * this transaction alone), for writes a crash may lose safely. SQLite ignores it: durability
   * there is the connection's `synchronous` setting, the same for every transaction.
   */
  asyncCommit?: boolean;
}

/** What the shared store parts run on: one per driver (sqlite/sql-context.ts, postgres/sql-context.ts). */
export interface Executor {
  /** Runs one statement on its own and returns its first row. */
  one(name: string, params?: Params): Promise<Row | undefined>;
  /** Runs one statement on its own and returns its rows. */
  all(name: string, params?: Params): Promise<Row[]>;
  /**
   * Runs one read on its own, planned for these parameters: PostgreSQL sends it unprepared, so
   * it gets a custom plan instead of a generic one (for statements whose best plan depends on
   * which filters are NULL: the delivery list). SQLite plans every statement that way anyway.
   */
  allPlanned(name: string, params?: Params): Promise<Row[]>;
  /** Runs one statement on its own and returns how many rows it changed. */
  count(name: string, params?: Params): Promise<number>;
  /**
   * Runs a body without a transaction: each statement commits on its own. For reads, and for
   * writes whose statements are each safe alone. SQLite runs it synchronously (nothing else runs
   * between its statements); PostgreSQL on the pool.
   */
  run<T>(body: () => Body<T>): Promise<T>;
  /** Runs a body in one transaction: SQLite `BEGIN IMMEDIATE` (the write lock first), PostgreSQL `BEGIN … COMMIT` on one connection. */
  transaction<T>(body: () => Body<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs reads that describe one moment where that is cheap: SQLite in one DEFERRED read
   * transaction (one snapshot, no lock that writers wait for); PostgreSQL on the pool, `allOf`
   * side by side, accepting that a row moving between two reads shows in one of them (gauges and
   * lists tolerate that; holding a connection for a snapshot would buy nothing).
   */
  reads<T>(body: () => Body<T>): Promise<T>;
  /** Runs reads in one snapshot in both dialects (PostgreSQL: REPEATABLE READ READ ONLY). */
  snapshot<T>(body: () => Body<T>): Promise<T>;
  /**
   * After a commit that made deliveries of these accounts due: wakes workers of other processes
   * (PostgreSQL NOTIFY, coalesced, best effort). SQLite: nothing, one process per file wakes its
   * own workers in memory (delivery/wake-signal.ts).
   */
  wake(accounts: Iterable<string>): void;
  /** True when `err` is the database refusing a duplicate (SQLite: any constraint violation; PostgreSQL: unique_violation). */
  isConflict(err: unknown): boolean;
  /** The content cipher, when content is sealed at rest (content-cipher.ts). */
  readonly cipher: ContentCipher | null;
  /** The content a driver writes into a sealed column (sealed, bound to its row, when a cipher is configured). */
  sealContent(content: unknown, binding: SealBinding): string;
  /** `row` with its `content_json` opened back to JSON text, for the row readers. */
  openRow<T extends Row>(row: T, table: 'notifications' | 'campaigns', idColumn?: string): T;
}

/**
 * Runs `body` to its end, handing each yielded step to `exec` (synchronous: the SQLite driver).
 * A statement's error is thrown into the body, so its try/finally blocks run as in plain code.
 */
export function driveSync<T>(body: Body<T>, exec: (step: Step) => unknown): T {
  let r = body.next();
  while (!r.done) {
    let result: unknown;
    try {
      result = exec(r.value);
    } catch (err) {
      r = body.throw(err);
      continue;
    }
    r = body.next(result);
  }
  return r.value;
}

/** Runs `body` to its end, awaiting each yielded step's `exec` (the PostgreSQL driver). */
export async function driveAsync<T>(body: Body<T>, exec: (step: Step) => Promise<unknown>): Promise<T> {
  let r = body.next();
  while (!r.done) {
    let result: unknown;
    try {
      result = await exec(r.value);
    } catch (err) {
      r = body.throw(err);
      continue;
    }
    r = body.next(result);
  }
  return r.value;
}
