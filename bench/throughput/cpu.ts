/**
 * CPU accounting from /proc (Linux): how many CPU-milliseconds each process group used during a
 * phase, and how much the whole machine used, so a report can say where the two cores went
 * (and how much went to processes that are not part of the benchmark).
 */
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ is 100 on every Linux this runs on; /proc reports utime/stime in these ticks.
const TICK_MS = 10;

interface ProcStat {
  ppid: number;
  cpuMs: number;
  /** CPU of its children that have exited and been waited for (cutime + cstime). */
  reapedChildrenCpuMs: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(rest[1]),
      cpuMs: (Number(rest[11]) + Number(rest[12])) * TICK_MS,
      reapedChildrenCpuMs: (Number(rest[13]) + Number(rest[14])) * TICK_MS,
    };
  } catch {
    return null;
  }
}

/** CPU ms used so far by one process (all its threads), or 0 if it is gone. */
export function processCpuMs(pid: number): number {
  return readStat(pid)?.cpuMs ?? 0;
}

/**
 * CPU ms used so far by a process and its direct children (a PostgreSQL postmaster and its
 * backends), the children that have exited included: without them a window in which other
 * clients' backends ended (a PostgreSQL server shared with other work) came out negative.
 */
export function processTreeCpuMs(pid: number): number {
  const root = readStat(pid);
  let total = root ? root.cpuMs + root.reapedChildrenCpuMs : 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(Number(name));
    if (s && s.ppid === pid) total += s.cpuMs;
  }
  return total;
}

/**
 * CPU ms per kind of child of a PostgreSQL postmaster ("backends", "walwriter", "checkpointer",
 * "autovacuum worker"…), by process title; pass the result of an earlier call as `since` to get
 * what each kind used in between (a child that started meanwhile counts from zero).
 */
export function postgresCpuByKind(
  postmaster: number,
  since?: Map<number, { kind: string; cpuMs: number }>,
): {
  perPid: Map<number, { kind: string; cpuMs: number }>;
  byKind: Record<string, number>;
} {
  const perPid = new Map<number, { kind: string; cpuMs: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const s = readStat(pid);
    if (!s || (s.ppid !== postmaster && pid !== postmaster)) continue;
    let title = '';
    try {
      title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    // "postgres: 15/main: postgres test 127.0.0.1(50174) idle" is a client backend.
    const kind = pid === postmaster ? 'postmaster' : /\(\d+\)|\[local\]/.test(title) ? 'backends' : title.replace(/^postgres:\s*(\S+:\s*)?/, '');
    perPid.set(pid, { kind, cpuMs: s.cpuMs });
  }
  const byKind: Record<string, number> = {};
  for (const [pid, v] of perPid) {
    const used = v.cpuMs - (since?.get(pid)?.cpuMs ?? 0);
    if (used > 0) byKind[v.kind] = (byKind[v.kind] ?? 0) + used;
  }
  return { perPid, byKind };
}

/** The parent pid of a process (to find a PostgreSQL backend's postmaster). */
export function parentPid(pid: number): number | null {
  return readStat(pid)?.ppid ?? null;
}

interface MachineCpu {
  /** Every busy jiffy: user, nice, system, irq, softirq, steal. */
  busy: number;
  /** Interrupt and softirq time (loopback networking lands here), charged to no process. */
  irq: number;
  /** Time the hypervisor gave to other guests. */
  steal: number;
}

function machineCpu(): MachineCpu {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).map(Number);
  return { busy: (user + nice + system + irq + softirq + steal) * TICK_MS, irq: (irq + softirq) * TICK_MS, steal: steal * TICK_MS };
}

/** Busy CPU ms of the whole machine so far (every core; idle and iowait excluded). */
export function machineBusyCpuMs(): number {
  return machineCpu().busy;
}

export interface CpuGroups {
  [group: string]: () => number;
}

/**
 * Samples each group's CPU at start; `stop()` returns CPU seconds per group plus `irq`
 * (interrupts/softirq, e.g. loopback TCP), `steal`, `machine` (all busy time) and `other`
 * (the rest: other processes and kernel threads such as the disk flusher).
 */
export function startCpuMeter(groups: CpuGroups): { stop(): Record<string, number> } {
  const before = Object.fromEntries(Object.entries(groups).map(([k, f]) => [k, f()]));
  const m0 = machineCpu();
  return {
    stop() {
      const out: Record<string, number> = {};
      let ours = 0;
      for (const [k, f] of Object.entries(groups)) {
        out[k] = (f() - before[k]!) / 1000;
        ours += out[k];
      }
      const m1 = machineCpu();
      out.irq = (m1.irq - m0.irq) / 1000;
      out.steal = (m1.steal - m0.steal) / 1000;
      out.machine = (m1.busy - m0.busy) / 1000;
      out.other = Math.max(0, out.machine - ours - out.irq - out.steal);
      return out;
    },
  };
}
