/**
 * The BullMQ notifier's worker (a child process of the benchmarks): one BullMQ `Worker` with
 * concurrency 50 and, when PEER_RATE is set, BullMQ's global rate limiter at that many jobs per
 * second (`limiter: {max: R, duration: 1000}`, kept in Redis, so every worker of the queue
 * shares it). Each job is one SMS to the sandbox (sms-call.ts); a 429, a 5xx or a lost answer is
 * thrown back to BullMQ, which retries it with the job's backoff; an expired message or another
 * 4xx fails the job for good.
 *
 * `GET /stats` on its own port answers what it did (sends, retries, failures, the time of the
 * last send, and with `?latency=1` request → provider answer latencies), which the throughput
 * benchmark reads.
 *
 * Environment: PEER_REDIS_URL, PEER_PREFIX, PEER_SANDBOX_URL, PEER_RATE (0 or unset: no
 * limiter), PEER_CONCURRENCY (default 50), PEER_RUN (prefix of the Idempotency-Key sent).
 * Prints `peer worker ready, stats on <url>` when ready.
 */
import http from 'node:http';
import { UnrecoverableError, Worker } from 'bullmq';
import type { SmsJob } from './notification.js';
import { peerEnv, QUEUE_NAME, redisConnection } from './queue.js';
import { createSmsClient } from './sms-call.js';

const rate = Number(process.env.PEER_RATE ?? 0);
const concurrency = Number(process.env.PEER_CONCURRENCY ?? 50);
const run = process.env.PEER_RUN ?? `peer${process.pid}`;
const sms = createSmsClient(peerEnv('PEER_SANDBOX_URL'));

const stats = { sent: 0, retried: 0, failed: 0, expired: 0, lastSentAt: 0 };
let latencies = new Float64Array(1 << 16);

function recordLatency(ms: number): void {
  if (stats.sent >= latencies.length) {
    const grown = new Float64Array(latencies.length * 2);
    grown.set(latencies);
    latencies = grown;
  }
  latencies[stats.sent] = ms;
}

const worker = new Worker<SmsJob>(
  QUEUE_NAME,
  async (job) => {
    const d = job.data;
    if (Date.now() > d.expiresAt) {
      stats.expired++;
      throw new UnrecoverableError('expired before it could be sent');
    }
    const verdict = await sms.send(d.to, d.text, `${run}-${job.id}`);
    if (verdict.kind === 'sent') {
      const now = Date.now();
      recordLatency(now - d.receivedAt);
      stats.sent++;
      stats.lastSentAt = now;
      return;
    }
    if (verdict.kind === 'retry') {
      stats.retried++;
      throw new Error(verdict.reason);
    }
    stats.failed++;
    throw new UnrecoverableError(verdict.reason);
  },
  {
    connection: redisConnection(peerEnv('PEER_REDIS_URL')),
    prefix: peerEnv('PEER_PREFIX'),
    concurrency,
    ...(rate > 0 ? { limiter: { max: rate, duration: 1_000 } } : {}),
  },
);
worker.on('error', (err) => process.stderr.write(`worker error: ${err.message}\n`));

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

// Counters are cheap to poll; the latency percentiles (a sort of every send so far) only with ?latency=1.
const statsServer = http.createServer((req, res) => {
  let latencyMs = null;
  if ((req.url ?? '').includes('latency=1')) {
    const sorted = latencies.slice(0, stats.sent).sort();
    latencyMs = { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
  }
  const body = JSON.stringify({ ...stats, latencyMs });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});

await worker.waitUntilReady();
statsServer.listen(0, '127.0.0.1', () => {
  const address = statsServer.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  process.stdout.write(
    `peer worker ready (concurrency ${concurrency}, ${rate > 0 ? `limiter ${rate}/s` : 'no limiter'}), stats on http://127.0.0.1:${address.port}\n`,
  );
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    statsServer.close();
    void worker.close().finally(() => {
      sms.close();
      process.exit(0);
    });
  });
}
