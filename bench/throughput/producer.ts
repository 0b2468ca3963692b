/**
 * The HTTP load generator, run as its own process so it does not share Herald's event loop:
 * `concurrency` keep-alive connections, each sending POST /v1/notifications one after the
 * other (a closed loop) until N have been answered. It prints `ready` and waits for a line on
 * stdin before starting, then prints one JSON line with its timings.
 *
 * Usage (from bench/throughput.ts): node --import tsx bench/throughput/producer.ts '<json options>'
 */
import http from 'node:http';
import { createInterface } from 'node:readline';
import { notificationBody, type Channel } from './bodies.js';

interface ProducerOptions {
  url: string;
  apiKey: string;
  n: number;
  concurrency: number;
  channel: Channel;
  idempotencyKeys: boolean;
  runId: string;
}

export interface ProducerResult {
  elapsedMs: number;
  ok: number;
  statuses: Record<string, number>;
  /** CPU this process used from start to last answer (user + system), ms. */
  cpuMs: number;
  /** Client-observed request → 202 latency, ms. */
  latencyMs: { p50: number; p99: number; max: number };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function run(o: ProducerOptions): Promise<ProducerResult> {
  const target = new URL('/v1/notifications', o.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
  const latencies = new Float64Array(o.n);
  const statuses: Record<string, number> = {};
  let next = 0;
  let ok = 0;

  const post = (i: number): Promise<number> =>
    new Promise((resolve) => {
      const body = Buffer.from(JSON.stringify(notificationBody(o.channel, o.runId, i)));
      const headers: Record<string, string> = {
        authorization: `Bearer ${o.apiKey}`,
        'content-type': 'application/json',
        'content-length': String(body.length),
      };
      if (o.idempotencyKeys) headers['idempotency-key'] = `"${o.runId}-${i}"`;
      const req = http.request(target, { method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(-1));
      req.end(body);
    });

  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const lane = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= o.n) return;
      const t0 = performance.now();
      const status = await post(i);
      latencies[i] = performance.now() - t0;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === 202) ok++;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, lane));
  const elapsedMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  latencies.sort();
  return {
    elapsedMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    ok,
    statuses,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? NaN },
  };
}

const options = JSON.parse(process.argv[2] ?? '{}') as ProducerOptions;
process.stdout.write('ready\n');
const rl = createInterface({ input: process.stdin });
rl.once('line', () => {
  rl.close();
  run(options).then(
    (r) => {
      process.stdout.write(`${JSON.stringify(r)}\n`);
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`producer failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
});
