/**
 * The two SQL dialects checked against each other (STYLE habit 2, River's same query names in
 * every driver): SQLite's and PostgreSQL's queries/*.sql define the same statement names, in the
 * same files, each with a header listing its parameters and each used by its driver. A name in
 * one dialect only must be in DIALECT_ONLY below, with the reason. The CHECK constraints of the
 * two schemas are compared in schema-checks.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadNamedSql } from '../../src/store/named-sql.js';

const DIALECTS = ['sqlite', 'postgres'] as const;
type Dialect = (typeof DIALECTS)[number];
const driverDir = (d: Dialect) => fileURLToPath(new URL(`../../src/store/${d}`, import.meta.url));
const partsDir = fileURLToPath(new URL('../../src/store/parts', import.meta.url));
const storeDir = fileURLToPath(new URL('../../src/store', import.meta.url));

/**
 * Statements one dialect has and the other does without, and why. Everything else is named
 * the same in both (a statement may take a batch as arrays in PostgreSQL where SQLite runs it
 * per row inside one transaction: same name, same effect).
 */
const DIALECT_ONLY: Record<Dialect, Record<string, string>> = {
  sqlite: {
    // SQLite has no data-modifying CTEs: a claim is a select, then an update and an attempt
    // insert per id (PostgreSQL: claim_batch).
    claim_select_due: 'claims, step 1 of 3',
    claim_update: 'claims, step 2 of 3',
    attempt_insert: 'claims, step 3 of 3',
    // A guarded transition is the delivery update and the attempt close, then outbox_insert
    // (PostgreSQL: transitions_apply, a whole batch in one statement).
    delivery_transition: 'transition, the delivery row',
    attempt_finish: 'transition, the attempt row',
    // Intake writes the notification row, then each delivery (PostgreSQL: notification_create).
    notification_insert: 'intake, the notification row',
    delivery_insert: 'intake, one delivery row',
    // The relay finds the batch's last outbox id, fans out (outbox_relay), then marks the rows
    // (PostgreSQL: outbox_relay does all three in one statement).
    outbox_relay_bounds: 'relay, the batch bounds',
    outbox_mark_published: 'relay, marking the batch',
    // A campaign's deliveries get their campaign_id after insertNotification (PostgreSQL inserts
    // them with it: notification_create_many's campaign parameter).
    campaign_link_deliveries: 'fan-out, naming the campaign on each delivery',
  },
  postgres: {
    claim_batch: 'claims in one statement with FOR UPDATE SKIP LOCKED',
    transitions_apply: 'a batch of guarded transitions, attempt closes and outbox events in one statement',
    notification_create: 'intake in one statement (data-modifying CTEs)',
    // Group commit across connections: many callers' rows in one statement (SQLite groups
    // callers in one transaction instead, running the single-row statements).
    notification_create_many: 'coalesced intake of concurrent requests',
    // A batch's notifications with their keys taken in the same statement (SQLite decides each key
    // in the item's savepoint with idempotency_get/insert/replace, then completes it).
    notification_create_many_keyed: 'batch intake: notifications and their idempotency keys in one statement',
    idempotency_insert_many: 'coalesced reservation of new idempotency keys',
    outbox_insert_many: 'the outbox events of one evidence batch',
    attempts_resolve_many: 'the attempt resolutions of one evidence batch',
    // SQLite has one writer at a time, so it needs no locks of its own.
    challenge_lock: 'advisory lock: one writer per challenge group',
    outbox_relay_lock: 'advisory lock: one relay at a time, so seq order is publication order',
    // Other processes' workers are woken by LISTEN/NOTIFY; one SQLite process wakes its own in memory.
    ready_notify: 'NOTIFY after a commit that made work ready',
  },
};

/** Statement name → the queries/*.sql file defining it, and the statement's text with its header comments. */
function statements(d: Dialect): Map<string, { file: string; text: string }> {
  const dir = join(driverDir(d), 'queries');
  const out = new Map<string, { file: string; text: string }>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
    const blocks = readFileSync(join(dir, file), 'utf8')
      .split(/^(?=--\s*name:)/m)
      .filter((b) => /^--\s*name:/.test(b));
    for (const text of blocks) out.set(/^--\s*name:\s*([a-z0-9_]+)/.exec(text)![1]!, { file, text });
  }
  return out;
}

const named = { sqlite: statements('sqlite'), postgres: statements('postgres') };
const other = (d: Dialect): Dialect => (d === 'sqlite' ? 'postgres' : 'sqlite');
const sorted = (xs: Iterable<string>) => [...xs].sort();

describe('statement names: the same in both dialects', () => {
  it('the parser here reads what the drivers load', () => {
    for (const d of DIALECTS) expect(sorted(named[d].keys())).toEqual(sorted(loadNamedSql(join(driverDir(d), 'queries'), d).keys()));
  });

  it.each(DIALECTS)('%s defines every statement of the other dialect, except its DIALECT_ONLY ones', (d) => {
    const only = [...named[d].keys()].filter((n) => !named[other(d)].has(n));
    expect(sorted(only)).toEqual(sorted(Object.keys(DIALECT_ONLY[d])));
  });

  it('no needless pair: a dialect-only name has no twin in the other dialect that differs by a plural s', () => {
    const twins = (name: string) => {
      const words = name.split('_');
      return words.map((w, i) => [...words.slice(0, i), w.endsWith('s') ? w.slice(0, -1) : `${w}s`, ...words.slice(i + 1)].join('_'));
    };
    for (const d of DIALECTS) {
      for (const name of Object.keys(DIALECT_ONLY[d])) {
        expect(
          twins(name).filter((t) => named[other(d)].has(t)),
          `${d}'s ${name}`,
        ).toEqual([]);
      }
    }
  });

  it('a statement of both dialects lives in the same file in both (one file per table or aggregate)', () => {
    const files = (d: Dialect) => [...named[d]].filter(([n]) => named[other(d)].has(n)).map(([n, s]) => `${n} in ${s.file}`);
    expect(sorted(files('sqlite'))).toEqual(sorted(files('postgres')));
  });
});

describe('statement headers and use', () => {
  const body = (text: string) =>
    text
      .split('\n')
      .filter((l) => !l.startsWith('--'))
      .join('\n');
  const header = (text: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith('--'))
      .join('\n');

  it('every SQLite parameter (@name) is listed in its statement header', () => {
    for (const [name, s] of named.sqlite) {
      const params = new Set([...body(s.text).matchAll(/@(\w+)/g)].map((m) => m[1]!));
      for (const p of params) expect(header(s.text), `${name} lists @${p}`).toMatch(new RegExp(`--.*@${p}\\b`));
    }
  });

  it('every PostgreSQL parameter ($n) is listed in its statement header, numbered without gaps', () => {
    for (const [name, s] of named.postgres) {
      const numbers = [...new Set([...body(s.text).matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
      expect(numbers, `${name} numbers its parameters 1..n`).toEqual(numbers.map((_, i) => i + 1));
      for (const n of numbers) expect(header(s.text), `${name} lists $${n}`).toMatch(new RegExp(`--.*\\$${n}\\b`));
    }
  });

  it.each(DIALECTS)('every %s statement is used by its driver (a dead statement kept for parity would hide a difference)', (d) => {
    const code = [driverDir(d), partsDir, storeDir]
      .flatMap((dir) =>
        readdirSync(dir)
          .filter((f) => f.endsWith('.ts'))
          .map((f) => readFileSync(join(dir, f), 'utf8')),
      )
      .join('\n');
    expect([...named[d].keys()].filter((n) => !code.includes(`'${n}'`))).toEqual([]);
  });
});
