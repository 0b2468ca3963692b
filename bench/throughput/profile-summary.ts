/**
 * Summarizes V8 .cpuprofile files (from `npm run bench:throughput -- --cpu-prof DIR`): self time
 * by function and by area (Herald's own modules, pg, better-sqlite3, fastify, node:http, GC…).
 *
 * Usage: npx tsx bench/throughput/profile-summary.ts FILE.cpuprofile [--top 30]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function area(url: string, fn: string): string {
  if (url === '') {
    if (fn === '(garbage collector)') return 'GC';
    if (fn === '(idle)') return 'idle';
    if (fn === '(program)') return 'program (native, unattributed)';
    return `native: ${fn}`;
  }
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `pkg ${nm[1]}`;
  const d = /\/(?:dist|src)\/(.+)$/.exec(url);
  if (d) return `herald ${d[1]!.replace(/\.[jt]s$/, '')}`;
  if (url.startsWith('node:')) return url.replace(/^node:internal\//, 'node:');
  if (url.includes('/bench/')) return `bench ${url.split('/bench/')[1]}`;
  return url;
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' } } });
const top = Number(values.top);
for (const file of positionals) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byArea = new Map<string, number>();
  const byFn = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const a = area(url, functionName);
    byArea.set(a, (byArea.get(a) ?? 0) + us);
    const key = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|dist|src|bench)\//, '$1/')}:${lineNumber + 1}` : ''}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  console.log(`\n${file}: ${(total / 1e6).toFixed(2)} s sampled`);
  const idle = byArea.get('idle') ?? 0;
  console.log(`busy (non-idle): ${((total - idle) / 1e6).toFixed(2)} s`);
  console.log('-- self time by area');
  for (const [a, us] of [...byArea].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`${pct(us)}  ${a}`);
  console.log('-- self time by function');
  for (const [f, us] of [...byFn].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`${pct(us)}  ${f}`);
}
