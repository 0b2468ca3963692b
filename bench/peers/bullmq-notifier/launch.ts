/**
 * Starts the BullMQ notifier for a benchmark: its own Redis without persistence
 * (`redis-server --save '' --appendonly no` on a free loopback port), the intake and the worker,
 * each a child process tracked by bench/chaos/processes.ts (so `killAllChildren()` stops them
 * whatever happens). With `redisUrl` it uses that server instead, under a key prefix of its own,
 * and deletes only those keys when it stops.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { HeraldChild, ROOT } from '../../chaos/processes.js';

const HERE = join(ROOT, 'bench/peers/bullmq-notifier');
const TSX = { file: process.execPath, prefix: ['--import', 'tsx'] };

export interface PeerOptions {
  sandboxUrl: string;
  /** BullMQ's global limiter, jobs per second; null: no limiter. */
  rate: number | null;
  /** Jobs in flight in the worker (default 50). */
  concurrency?: number;
  /** An existing Redis (its keys are left alone); default: a Redis of its own. */
  redisUrl?: string;
}

export interface PeerStats {
  sent: number;
  retried: number;
  failed: number;
  expired: number;
  lastSentAt: number;
  /** Intake request → provider answer, ms; null unless asked for. */
  latencyMs: { p50: number; p99: number; max: number } | null;
}

export interface PeerProcesses {
  url: string;
  apiKey: string;
  intake: HeraldChild;
  worker: HeraldChild;
  /** The Redis child, or null when an existing server is used. */
  redis: HeraldChild | null;
  describe: string;
  /** Set when a process exited without being asked to. */
  crashed(): string | null;
  /** The worker's counters; with `latency`, also its latency percentiles (costs a sort). */
  stats(latency?: boolean): Promise<PeerStats>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

/** Deletes every key under `prefix` on the server at `url` (SCAN, never FLUSHDB: the server may be shared). */
async function deleteKeys(url: string, prefix: string): Promise<void> {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1_000);
      if (keys.length > 0) await r.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

/** Starts Redis (unless given), the worker and the intake; resolves once all three are ready. */
export async function startPeer(opts: PeerOptions): Promise<PeerProcesses> {
  const prefix = `herald-peer-${randomBytes(4).toString('hex')}`;
  const apiKey = `peer-${randomBytes(16).toString('hex')}`;
  let crash: string | null = null;
  const watch = (c: HeraldChild) => {
    void c.exited.then((exit) => {
      if (!c.signalledByRunner) crash ??= `${c.name} (pid ${c.pid}) exited on its own: ${JSON.stringify(exit)}\n${c.stderrTail().slice(-2_000)}`;
    });
    return c;
  };
  let redis: HeraldChild | null = null;
  let redisUrl = opts.redisUrl;
  if (redisUrl === undefined) {
    const port = await freePort();
    redis = watch(
      new HeraldChild(
        'redis',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--loglevel', 'notice'],
        {},
        { file: 'redis-server', prefix: [] },
      ),
    );
    await redis.waitFor(/Ready to accept connections/, 15_000);
    redisUrl = `redis://127.0.0.1:${port}`;
  }
  const env = {
    PEER_REDIS_URL: redisUrl,
    PEER_PREFIX: prefix,
    PEER_API_KEY: apiKey,
    PEER_SANDBOX_URL: opts.sandboxUrl,
    PEER_RATE: String(opts.rate ?? 0),
    PEER_CONCURRENCY: String(opts.concurrency ?? 50),
    PEER_RUN: prefix,
  };
  const worker = watch(new HeraldChild('peer worker', [join(HERE, 'worker.ts')], env, TSX));
  const intake = watch(new HeraldChild('peer intake', [join(HERE, 'intake.ts')], env, TSX));
  const statsUrl = (await worker.waitFor(/stats on (http\S+)/, 30_000))[1]!;
  const url = (await intake.waitFor(/listening on (http\S+)/, 30_000))[1]!;
  const workerLine = /peer worker ready \(([^)]*)\)/.exec(worker.stdout())?.[1] ?? '';
  return {
    url,
    apiKey,
    intake,
    worker,
    redis,
    describe:
      `BullMQ notifier: node:http intake → BullMQ queue "sms" (codes priority 1, campaign 10) → 1 worker (${workerLine}), ` +
      `sandbox SMS endpoint as Herald's adapter calls it; Redis ${redis ? `${redisUrl} (own process, no persistence)` : `${redisUrl} (existing server, key prefix ${prefix})`}`,
    crashed: () => crash,
    async stats(latency = false) {
      const res = await fetch(`${statsUrl}/stats${latency ? '?latency=1' : ''}`);
      return (await res.json()) as PeerStats;
    },
    async stop() {
      await Promise.all([intake.stop(5_000), worker.stop(5_000)]);
      if (redis) await redis.stop(5_000);
      else await deleteKeys(redisUrl, prefix).catch(() => {});
    },
  };
}
