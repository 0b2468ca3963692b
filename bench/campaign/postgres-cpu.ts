/**
 * CPU of a PostgreSQL server including backends that have exited: Herald's pools close idle
 * connections, so backends come and go during a run, and summing the living children alone
 * (bench/throughput/cpu.ts `processTreeCpuMs`) loses what the departed ones used (the window
 * then shows negative PostgreSQL time and the difference as "other"). A reaped child's CPU is
 * added to its parent's cutime/cstime, so postmaster (self + reaped children) + living children
 * counts everything.
 */
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ is 100 on every Linux this runs on; /proc reports times in these ticks.
const TICK_MS = 10;

function fields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU ms used so far by the postmaster, its reaped children and its living children. */
export function postgresCpuMs(postmaster: number): number {
  const own = fields(postmaster);
  if (!own) return 0;
  // After ')': [0] state, [1] ppid, … [11] utime, [12] stime, [13] cutime, [14] cstime.
  let total = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * TICK_MS;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = fields(Number(name));
    if (f && Number(f[1]) === postmaster) total += (Number(f[11]) + Number(f[12])) * TICK_MS;
  }
  return total;
}
