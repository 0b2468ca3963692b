/**
 * The error registry and its documentation agree: docs/errors.md has one `## <code>` section
 * per code in ERROR_CODES and no other, each stating the registry's status; every status is
 * an HTTP error status.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, HeraldError, toProblem, type ErrorCode } from '../../src/errors.js';

const DOC = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** Each `## heading` of the page with the text up to the next `## `. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = markdown.split(/^## /m).slice(1);
  for (const part of parts) {
    const newline = part.indexOf('\n');
    const heading = part.slice(0, newline).trim();
    expect(out.has(heading), `duplicate section ${heading}`).toBe(false);
    out.set(heading, part.slice(newline + 1));
  }
  return out;
}

const codes = Object.keys(ERROR_CODES) as ErrorCode[];

describe('docs/errors.md', () => {
  const documented = sections(DOC);

  it('documents every code in ERROR_CODES', () => {
    const missing = codes.filter((c) => !documented.has(c));
    expect(missing).toEqual([]);
  });

  it('documents no code that ERROR_CODES does not have', () => {
    const extra = [...documented.keys()].filter((heading) => !(heading in ERROR_CODES));
    expect(extra).toEqual([]);
  });

  it.each(codes)('%s: states the registry status, and says what the client should do', (code) => {
    const body = documented.get(code) ?? '';
    const status = /\*\*Status:\*\* (\d{3})/.exec(body);
    expect(status?.[1], code).toBe(String(ERROR_CODES[code].status));
    expect(body).toContain('**What to do:**');
  });
});

describe('ERROR_CODES', () => {
  it.each(codes)('%s has a 4xx or 5xx status and a title', (code) => {
    const { status, title } = ERROR_CODES[code];
    expect(Number.isInteger(status)).toBe(true);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(600);
    expect(title.length).toBeGreaterThan(0);
  });

  it('codes are snake_case', () => {
    for (const c of codes) expect(c).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });

  it('toProblem renders the registry entry with a type URI naming the code', () => {
    for (const code of codes) {
      const p = toProblem(new HeraldError(code, 'detail'), '/x');
      expect(p).toEqual({
        type: `https://herald.dev/errors/${code}`,
        title: ERROR_CODES[code].title,
        status: ERROR_CODES[code].status,
        code,
        detail: 'detail',
        instance: '/x',
      });
    }
  });
});
