/**
 * Side-by-side figures of Herald and a peer, as the benchmarks print them: a ratio that says
 * what it divides, and a plain-text table. Pure.
 */

/** `a / b` as "1.63×"; "—" when either is not a number, "∞" when only b is 0, "1.00×" when both are. */
export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return '—';
  if (b === 0) return a === 0 ? '1.00×' : '∞';
  return `${(a / b).toFixed(2)}×`;
}

/** A Markdown-style table with every column padded to its widest cell. */
export function textTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${widths.map((w, i) => (cells[i] ?? '').padEnd(w)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
}
