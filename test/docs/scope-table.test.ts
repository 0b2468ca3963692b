/**
 * Keeps docs/tenants.md's scope table true: every route of `ROUTE_SCOPES` (the one table
 * buildApp enforces) is listed under its scope, or under `(no key)` when it takes no API key,
 * and the table lists no route the code does not have. A new route fails here until the docs
 * say what it needs.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { ROUTE_SCOPES } from '../../src/http/route-scopes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TENANTS_MD = readFileSync(join(ROOT, 'docs/tenants.md'), 'utf8');

/** The "| scope | routes |" table's rows as scope → routes, from lines `| \`scope\` | \`GET /x\`, … |`. */
function documented(): Map<string, string[]> {
  const start = TENANTS_MD.indexOf('\n| scope | routes |\n');
  expect(start, 'docs/tenants.md has the "| scope | routes |" table').toBeGreaterThanOrEqual(0);
  const table = TENANTS_MD.slice(start).split('\n\n')[0]!;
  const rows = new Map<string, string[]>();
  for (const m of table.matchAll(/^\| `([a-z ()]+)` \| (.*) \|$/gm)) {
    rows.set(
      m[1]!,
      [...m[2]!.matchAll(/`([^`]+)`/g)].map((r) => r[1]!),
    );
  }
  return rows;
}

it("docs/tenants.md's scope table lists every route under the scope route-scopes.ts gives it, and no other route", () => {
  const expected = new Map<string, string[]>();
  for (const [route, need] of Object.entries(ROUTE_SCOPES)) {
    const scope = typeof need === 'string' ? need : '(no key)';
    expected.set(scope, [...(expected.get(scope) ?? []), route]);
  }
  const table = documented();
  expect([...table.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [scope, routes] of expected) expect([...(table.get(scope) ?? [])].sort(), `scope ${scope}`).toEqual([...routes].sort());
});
