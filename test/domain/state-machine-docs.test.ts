/**
 * Keeps docs/state-machine.md in step with src/domain (STYLE habit 6), and src/domain pure:
 * no imports from the rest of Herald, no hidden clock or randomness (habit 5).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  DELIVERY_STATES,
  TERMINAL_REASONS,
  TRANSITION_TABLE,
  decide,
  type DeliveryEvent,
  type DeliverySnapshot,
  type RetryPolicy,
} from '../../src/domain/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = readFileSync(join(ROOT, 'docs/state-machine.md'), 'utf8');
const DOMAIN_DIR = join(ROOT, 'src/domain');

/** The body rows of the markdown table whose header row is exactly `header`, cells trimmed, backticks removed. */
function tableAfterHeader(markdown: string, header: string[]): string[][] {
  const lines = markdown.split('\n');
  const split = (line: string): string[] =>
    line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim().replaceAll('`', ''));
  const starts = lines.flatMap((l, i) => (l.trim().startsWith('|') && JSON.stringify(split(l)) === JSON.stringify(header) ? [i] : []));
  expect(starts, `exactly one table with header ${header.join(' | ')}`).toHaveLength(1);
  const start = starts[0] as number;
  expect(lines[start + 1]?.trim()).toMatch(/^\|(\s*:?-+:?\s*\|)+$/);
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && (lines[i] ?? '').trim().startsWith('|'); i++) {
    const cells = split(lines[i] as string);
    expect(cells, `row ${i + 1} of the ${header[0]} table`).toHaveLength(header.length);
    rows.push(cells);
  }
  return rows;
}

// A small exhaustive grid of (state, event, clock, attempts): every terminal decision
// decide() can make, as (from, on, reason).
const POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 60_000, jitter: 'none' };
const GRID_EVENTS: DeliveryEvent[] = [
  { type: 'claim' },
  { type: 'outcome', outcome: { kind: 'accepted', providerMessageId: 'p' } },
  { type: 'outcome', outcome: { kind: 'retryable', code: 'c', message: 'm' } },
  { type: 'outcome', outcome: { kind: 'throttled', code: 'c', message: 'm', retryAfterMs: 5_000 } },
  { type: 'outcome', outcome: { kind: 'permanent', reason: 'invalid_destination', code: 'c', message: 'm' } },
  { type: 'outcome', outcome: { kind: 'unknown', code: 'c', message: 'm' } },
  { type: 'lease_expired' },
  { type: 'expire' },
  { type: 'cancel' },
  { type: 'evidence', found: true, providerMessageId: 'p' },
  { type: 'evidence', found: false, authoritative: true, windowClosed: false },
  { type: 'evidence', found: false, authoritative: false, windowClosed: true },
  { type: 'supersede' },
  { type: 'ambiguity_policy', policy: 'user_resend', dedupesByKey: false, windowClosed: false },
  { type: 'ambiguity_policy', policy: 'wait_for_evidence', dedupesByKey: false, windowClosed: true },
  { type: 'ambiguity_policy', policy: 'accept_duplicate', dedupesByKey: false, windowClosed: false },
  { type: 'suppress', reason: 'suppressed' },
  { type: 'suppress', reason: 'unsubscribed' },
  { type: 'suppress', reason: 'suppressed', detail: 'frequency_capped' },
  { type: 'defer', until: 10_000, reason: 'quiet_hours' },
  { type: 'defer', until: 2_000_000, reason: 'frequency_capped' },
  { type: 'replay', acceptDuplicateRisk: false },
  { type: 'replay', acceptDuplicateRisk: true },
  { type: 'not_sent', permanent: false },
  { type: 'not_sent', permanent: true },
  { type: 'not_sent', permanent: false, retryAfterMs: 5_000 },
  // A rollout stage holding the answer for a person (src/domain/rollout.ts).
  { type: 'outcome', outcome: { kind: 'retryable', code: 'c', message: 'm' }, hold: true },
  { type: 'outcome', outcome: { kind: 'unknown', code: 'c', message: 'm' }, hold: true },
];
function terminalDecisions(): Set<string> {
  const expiresAt = 1_000_000;
  const seen = new Set<string>();
  for (const state of DELIVERY_STATES)
    for (const event of GRID_EVENTS)
      for (const now of [0, expiresAt - 2_000, expiresAt - 1, expiresAt, expiresAt + 1])
        for (const attemptCount of [0, 1, 2, 3])
          for (const nextAttemptAt of [null, 0])
            for (const terminalReason of state === 'terminal' ? TERMINAL_REASONS : [null]) {
              const d: DeliverySnapshot = { state, terminalReason, attemptCount, expiresAt, nextAttemptAt };
              const r = decide(d, event, { now, policy: POLICY, random: () => 0.5 });
              if (r.ok && r.terminalReason !== null) seen.add(`${r.from}|${r.on}|${r.terminalReason}`);
            }
  return seen;
}

describe('docs/state-machine.md', () => {
  it('transition table equals TRANSITION_TABLE, row for row', () => {
    const rows = tableAfterHeader(DOC, ['from', 'to', 'on', 'when']);
    expect(rows).toEqual(TRANSITION_TABLE.map((r) => [r.from, r.to, r.on, r.when]));
  });

  it('states table lists exactly DELIVERY_STATES, in order', () => {
    const rows = tableAfterHeader(DOC, ['state', 'known fact', 'next action']);
    expect(rows.map((r) => r[0])).toEqual([...DELIVERY_STATES]);
    for (const r of rows) expect(r[1]?.length && r[2]?.length).toBeTruthy();
  });

  it('terminal reasons table lists exactly TERMINAL_REASONS, in order', () => {
    const rows = tableAfterHeader(DOC, ['reason', 'meaning', 'set by']);
    expect(rows.map((r) => r[0])).toEqual([...TERMINAL_REASONS]);
  });

  it('events table lists exactly the events of TRANSITION_TABLE', () => {
    const rows = tableAfterHeader(DOC, ['event', 'raised by', 'meaning']);
    expect(rows.map((r) => r[0]).sort()).toEqual([...new Set(TRANSITION_TABLE.map((r) => r.on))].sort());
  });

  it('"set by" and the `when` texts name every terminal reason decide() actually produces', () => {
    const produced = terminalDecisions();
    // From the grid: which events produce each reason.
    const byReason = new Map<string, Set<string>>();
    for (const key of produced) {
      const [from, on, reason] = key.split('|') as [string, string, string];
      byReason.set(reason, (byReason.get(reason) ?? new Set()).add(on));
      // The row's `when` must say this reason can happen on this edge.
      const row = TRANSITION_TABLE.find((r) => r.from === from && r.to === 'terminal' && r.on === on);
      expect(row, key).toBeDefined();
      const named = reason === 'expired' ? /\bexpire/ : new RegExp(`\\b${reason}\\b`);
      expect(row?.when, `${key}: the \`when\` of ${from} -> terminal on ${on}`).toMatch(named);
    }
    // The docs' "set by" column: `decide: a, b` lists exactly the producing events; others say "outside decide".
    for (const [reason, , setBy] of tableAfterHeader(DOC, ['reason', 'meaning', 'set by'])) {
      const documented = setBy?.startsWith('decide:')
        ? setBy
            .slice('decide:'.length)
            .split(',')
            .map((s) => s.trim())
            .sort()
        : [];
      expect(documented, `set by for ${reason}`).toEqual([...(byReason.get(reason as string) ?? [])].sort());
    }
  });
});

/**
 * Packages the domain may import: computation only, no I/O, no clock of their own used.
 * temporal-polyfill: time zone rules for quiet hours (docs/scheduling.md); its clock,
 * `Temporal.Now`, is refused below like `Date.now`.
 */
const PURE_PACKAGES = ['temporal-polyfill'];

/** Imports leaving src/domain (other than node: builtins and PURE_PACKAGES) and hidden clock/randomness calls. */
function purityViolations(fileName: string, source: string): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const where = (n: ts.Node): string => `${relative(ROOT, fileName)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
  const checkSpecifier = (spec: string, n: ts.Node): void => {
    if (spec.startsWith('node:') || PURE_PACKAGES.includes(spec)) return;
    const target = resolve(dirname(fileName), spec);
    if (!spec.startsWith('.') || !(target === DOMAIN_DIR || target.startsWith(DOMAIN_DIR + '/'))) {
      out.push(`${where(n)} imports '${spec}'`);
    }
  };
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      checkSpecifier(n.moduleSpecifier.text, n);
    }
    if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      const e = n.moduleReference.expression;
      if (ts.isStringLiteral(e)) checkSpecifier(e.text, n);
    }
    if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      checkSpecifier(n.argument.literal.text, n);
    }
    if (ts.isCallExpression(n)) {
      const callee = n.expression;
      const arg = n.arguments[0];
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) {
        if (arg && ts.isStringLiteral(arg)) checkSpecifier(arg.text, n);
        else out.push(`${where(n)} has a dynamic import`);
      }
      const name = callee.getText(sf).replace(/\s/g, '');
      if (['Date.now', 'Math.random', 'Date', 'performance.now'].includes(name) || name.startsWith('Temporal.Now.')) out.push(`${where(n)} calls ${name}()`);
    }
    // `new Date()` reads the clock; `new Date(ms)` only converts a time that came in as an argument.
    if (ts.isNewExpression(n) && n.expression.getText(sf).trim() === 'Date' && !n.arguments?.length) out.push(`${where(n)} calls new Date()`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('src/domain purity', () => {
  const files = readdirSync(DOMAIN_DIR).filter((f) => f.endsWith('.ts'));

  it('finds the domain files', () => {
    expect(files).toEqual(expect.arrayContaining(['decide.ts', 'transitions.ts', 'vocabulary.ts', 'index.ts']));
  });

  it('imports nothing outside src/domain except node: builtins, and reads no clock or randomness', () => {
    const violations = files.flatMap((f) => purityViolations(join(DOMAIN_DIR, f), readFileSync(join(DOMAIN_DIR, f), 'utf8')));
    expect(violations).toEqual([]);
  });

  it('the checker itself catches each kind of violation', () => {
    const bad = [
      "import { x } from '../store/store.js';",
      "import type { Y } from 'fastify';",
      "export * from '../http/app.js';",
      "import { ok } from './decide.js';",
      "import { createHash } from 'node:crypto';",
      'const a = Date.now();',
      'const b = new Date();',
      'const c = Math.random();',
      "const d = await import('../delivery/worker.js');",
      '// Date.now() in a comment is fine',
      'const e = new Date(0).toISOString();',
      "const e = 'Math.random() in a string is fine';",
      "import { Temporal } from 'temporal-polyfill';",
      'const f = Temporal.Now.instant();',
    ].join('\n');
    expect(purityViolations(join(DOMAIN_DIR, 'probe.ts'), bad)).toEqual([
      "src/domain/probe.ts:1 imports '../store/store.js'",
      "src/domain/probe.ts:2 imports 'fastify'",
      "src/domain/probe.ts:3 imports '../http/app.js'",
      'src/domain/probe.ts:6 calls Date.now()',
      'src/domain/probe.ts:7 calls new Date()',
      'src/domain/probe.ts:8 calls Math.random()',
      "src/domain/probe.ts:9 imports '../delivery/worker.js'",
      'src/domain/probe.ts:14 calls Temporal.Now.instant()',
    ]);
  });
});
