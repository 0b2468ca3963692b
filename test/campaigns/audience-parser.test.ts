/**
 * The upload parser on its own: lines split across chunks (mid-line and mid-character), CRLF
 * and a BOM, RFC 4180 quoting, line numbers that count blank lines, an over-long line skipped
 * and reported once, a bad CSV header, and the byte cap.
 */
import { describe, expect, it } from 'vitest';
import { parseAudience, splitCsvLine, type ParsedLine } from '../../src/campaigns/audience-parser.js';
import { HeraldError } from '../../src/errors.js';

async function parse(chunks: Array<string | Buffer>, format: 'csv' | 'ndjson', limits = { maxBytes: 1e6, maxLineChars: 100 }): Promise<ParsedLine[]> {
  const out: ParsedLine[] = [];
  for await (const batch of parseAudience(chunks, format, limits)) out.push(...batch);
  return out;
}

describe('splitCsvLine', () => {
  it('reads RFC 4180 quoting on one line', () => {
    expect(splitCsvLine('a,"b,c","d ""e""",')).toEqual(['a', 'b,c', 'd "e"', '']);
    expect(splitCsvLine('')).toEqual(['']);
    expect(splitCsvLine('"a"x,b')).toMatch(/after a closing quote/);
    expect(splitCsvLine('a"b,c')).toMatch(/quote inside an unquoted field/);
    expect(splitCsvLine('"open,b')).toMatch(/does not close/);
  });
});

describe('parseAudience', () => {
  it('joins lines and characters split across chunks, and numbers lines counting blank ones', async () => {
    const euro = Buffer.from('u2,é@example.com\n');
    const rows = await parse(['\uFEFFid,em', 'ail\r\nu1,a@example.com\r\n\r\n', euro.subarray(0, 4), euro.subarray(4), 'u3,c@example.com'], 'csv');
    expect(rows).toEqual([
      { kind: 'row', line: 2, fields: { id: 'u1', email: 'a@example.com' } },
      { kind: 'row', line: 4, fields: { id: 'u2', email: 'é@example.com' } },
      { kind: 'row', line: 5, fields: { id: 'u3', email: 'c@example.com' } },
    ]);
  });

  it('leaves empty cells and JSON nulls out, and reports unreadable lines by number', async () => {
    expect(await parse(['id,phone,email\nu1,,a@example.com\nu2,x\n'], 'csv')).toEqual([
      { kind: 'row', line: 2, fields: { id: 'u1', email: 'a@example.com' } },
      { kind: 'error', line: 3, message: 'has 2 fields; the header has 3' },
    ]);
    expect(await parse(['{"id":"u1","phone":null}\n[1]\n{bad\n'], 'ndjson')).toEqual([
      { kind: 'row', line: 1, fields: { id: 'u1' } },
      { kind: 'error', line: 2, message: expect.stringMatching(/must be a JSON object/) },
      { kind: 'error', line: 3, message: 'is not valid JSON' },
    ]);
  });

  it('reports an over-long line once, skips it, and reads on', async () => {
    const long = 'x'.repeat(150);
    const rows = await parse([`{"id":"u1"}\n{"id":"${long.slice(0, 60)}`, `${long.slice(60)}"}\n{"id":"u3"}\n`], 'ndjson');
    expect(rows).toEqual([
      { kind: 'row', line: 1, fields: { id: 'u1' } },
      { kind: 'error', line: 2, message: 'is longer than 100 characters' },
      { kind: 'row', line: 3, fields: { id: 'u3' } },
    ]);
    // Longer than the cap before its end has even arrived: dropped as it comes, not buffered.
    expect(await parse([`{"id":"u1"}\n${long}`, 'more', 'tail"}\n{"id":"u3"}\n'], 'ndjson')).toEqual(rows);
  });

  it('refuses a CSV header it cannot use, once, and reads nothing after it', async () => {
    expect(await parse(['id,nickname\nu1,x\nu2,y\n'], 'csv')).toEqual([{ kind: 'error', line: 1, message: expect.stringMatching(/"nickname"/) }]);
    expect(await parse(['email\na@example.com\n'], 'csv')).toEqual([{ kind: 'error', line: 1, message: '(the header) has no id column' }]);
    expect(await parse(['\n\n'], 'csv')).toEqual([{ kind: 'error', line: 1, message: expect.stringMatching(/has no header/) }]);
  });

  it("reads CSV data.* columns into a row's data (dotted names nest; empty cells are no field) and NDJSON data as given", async () => {
    const csv = 'id,data.first_name,data.order.total,data.order.id,email\nu1,Ada,12.50,o-1,a@example.com\nu2,,,,\n';
    expect(await parse([csv], 'csv', { maxBytes: 1e6, maxLineChars: 200 })).toEqual([
      { kind: 'row', line: 2, fields: { id: 'u1', email: 'a@example.com', data: { first_name: 'Ada', order: { total: '12.50', id: 'o-1' } } } },
      { kind: 'row', line: 3, fields: { id: 'u2' } },
    ]);
    expect(await parse(['{"id":"u1","data":{"n":3,"vip":true}}\n'], 'ndjson')).toEqual([
      { kind: 'row', line: 1, fields: { id: 'u1', data: { n: 3, vip: true } } },
    ]);
    // A data field cannot be both a value and an object; a data name must be an identifier path.
    expect(await parse(['id,data.order,data.order.total\nu1,a,b\n'], 'csv')).toEqual([
      { kind: 'error', line: 1, message: expect.stringMatching(/names data.order and a column inside it/) },
    ]);
    expect(await parse(['id,data.\nu1,a\n'], 'csv')).toEqual([{ kind: 'error', line: 1, message: expect.stringMatching(/names the column "data."/) }]);
    expect(await parse(['id,data.a-b\nu1,a\n'], 'csv')).toEqual([{ kind: 'error', line: 1, message: expect.stringMatching(/"data.a-b"/) }]);
  });

  it('throws audience_too_large past the byte cap', async () => {
    const err = await parse(['id\n', 'u1\n'.repeat(10)], 'csv', { maxBytes: 20, maxLineChars: 100 }).catch((e) => e);
    expect(err).toBeInstanceOf(HeraldError);
    expect(err.code).toBe('audience_too_large');
  });
});
