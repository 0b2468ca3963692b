/**
 * Keeps README.md true about what the code lists, in the style of the ladders and state-machine
 * docs tests: every terminal reason (src/domain), every `herald` command and sub-command (the
 * CLI's dispatch in src/cli/main.ts and the usage lines of src/cli/commands/), every part the
 * import rules know (.dependency-cruiser.cjs) and every named part of the Store contract. A new
 * reason, command, part or store part fails here until the README says it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TERMINAL_REASONS } from '../../src/domain/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The text of a `## ` section, up to the next `## ` heading. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, `README has "${heading}"`).toBeGreaterThanOrEqual(0);
  const next = markdown.indexOf('\n## ', start + heading.length + 2);
  return markdown.slice(start, next === -1 ? undefined : next);
}

describe('README.md and docs/README.md', () => {
  it('lists every terminal reason, and no other', () => {
    const states = section(README, '## The six delivery states');
    const sentence = /Terminal reasons: ([^.]*?)(?:\(|\.)/s.exec(states);
    expect(sentence, 'a "Terminal reasons: …" sentence').not.toBeNull();
    const listed = [...sentence![1]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(listed).toEqual([...TERMINAL_REASONS]);
  });

  it('lists every herald command the CLI dispatches, and every sub-command its usage lines name', () => {
    const commands = section(README, '## Commands');
    const main = read('src/cli/main.ts');
    const dispatched = [...main.matchAll(/case '([a-z][a-z-]*)':/g)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(dispatched.length).toBeGreaterThan(10);
    for (const c of dispatched) expect(commands, `herald ${c}`).toMatch(new RegExp(`^herald ${c}\\b`, 'm'));

    const subcommands = readdirSync(join(ROOT, 'src/cli/commands')).flatMap((f) =>
      [...read(`src/cli/commands/${f}`).matchAll(/(?:Usage: |^\s+)herald ([a-z][a-z-]*) ([a-z][a-z-]*)/gm)].map((m) => `${m[1]} ${m[2]}`),
    );
    expect(subcommands).toEqual(expect.arrayContaining(['keys create', 'tenants assign', 'users revoke-sessions', 'alerts test']));
    for (const s of new Set(subcommands)) expect(commands, `herald ${s}`).toMatch(new RegExp(`^herald ${s}\\b`, 'm'));
  });

  it('"How it is built" names every part of the import rules, and only those', () => {
    const built = section(README, '## How it is built');
    const rules = /const ALLOWED = \{([\s\S]*?)\n\};/.exec(read('.dependency-cruiser.cjs'));
    expect(rules, 'ALLOWED in .dependency-cruiser.cjs').not.toBeNull();
    const parts = [...rules![1]!.matchAll(/^ {2}(\w+):/gm)].map((m) => m[1]!);
    expect(parts.length).toBeGreaterThan(15);
    for (const part of parts) expect(built, part).toMatch(new RegExp(`src/${part}(/|\\.ts)`));
    const named = [...built.matchAll(/src\/([a-z-]+)(?:\/|\.ts)/g)].map((m) => m[1]!);
    expect(named.filter((n) => !parts.includes(n))).toEqual([]);
  });

  it('"How it is built" names every part of the Store contract', () => {
    const built = section(README, '## How it is built');
    const store = read('src/store/store.ts');
    const contract = /export interface Store\b[^{]*\{([\s\S]*?)\n\}/.exec(store);
    expect(contract, 'the Store interface').not.toBeNull();
    const storeParts = [...contract![1]!.matchAll(/readonly (\w+): \w+Store;/g)].map((m) => m[1]!);
    expect(storeParts.length).toBeGreaterThan(15);
    for (const p of storeParts) expect(built, `store.${p}`).toMatch(new RegExp(`\\.${p}\\b`));
  });

  it('docs/README.md indexes every page under docs/', () => {
    const index = read('docs/README.md');
    const pages = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(pages.length).toBeGreaterThan(20);
    const linked = new Set([...index.matchAll(/\]\(([^)#]+\.md)/g)].map((m) => m[1]!));
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });
});
