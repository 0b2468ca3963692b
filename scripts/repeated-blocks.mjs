// Counts the repeated blocks outside src/store from the `duplicates` command's rows
// (`D1 a.ts:10-24 ~ b.ts:40-54 ...`, paths relative to src/): the pairs with neither side under
// store/, and their lines (each pair's first side, last - first + 1, summed). Usage:
//   duplicates --repo src --most 200 --seconds 180 | node scripts/repeated-blocks.mjs [--list]
// (docs/architecture.md, "Repeated code"). The figure counts what the tool listed: a line
// `(+N more pairs)` means --most cut the list, and is repeated here.
import process from 'node:process';

const list = process.argv.includes('--list');
const rows = [];
let cut = null;
let input = '';
for await (const chunk of process.stdin) input += chunk;
for (const line of input.split('\n')) {
  const more = /^\(\+(\d+) more pairs?\)/.exec(line);
  if (more) cut = Number(more[1]);
  const m = /^D\d+ (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)/.exec(line);
  if (m) rows.push({ line, a: m[1], lines: Number(m[3]) - Number(m[2]) + 1, b: m[4] });
}
const outside = rows.filter((r) => !r.a.startsWith('store/') && !r.b.startsWith('store/'));
if (list) for (const r of outside) process.stdout.write(`${r.line}\n`);
const lines = outside.reduce((sum, r) => sum + r.lines, 0);
const more = cut === null ? '' : ` (+${cut} more pairs not listed)`;
process.stdout.write(`${rows.length} pairs listed, ${outside.length} with neither side in src/store, ${lines} lines${more}\n`);
