/**
 * The fuzzed boundary (issue 18): generated and mutated requests against every route of the
 * app's route table, through app.inject (no sockets), on both drivers. Each answer must be
 * below 500; a refusal must be a problem document whose code is in src/errors.ts (the device
 * API: its `{message}` shape); a refused request must leave every table's row count as it was;
 * and the process must still answer at the end. FUZZ_RUNS (default 10,000 per driver) and
 * FUZZ_SEED (default fixed, printed) override; a failure prints the seed and path to replay it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { DRIVERS } from '../helpers/harness.js';
import { answerProblem, startFuzzTarget, type FuzzTarget } from './fuzz-harness.js';
import { requestsFor, type FuzzRequest } from './request-arbitrary.js';
import { openRowCounter, type RowCounter } from './row-counts.js';
import { routesOf, type RouteEntry } from './route-table.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 18_005);

/** A request still unanswered after this long is a hang (a slow-request DoS), not a slow test. */
const HANG_MS = 15_000;

async function answered<T>(p: Promise<T>, req: FuzzRequest): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${req.method} ${req.url.slice(0, 200)} [${req.what}]: no answer in ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    return await Promise.race([p, hang]);
  } finally {
    clearTimeout(timer);
  }
}

function changed(before: Record<string, number>, after: Record<string, number>): string[] {
  return Object.keys(after)
    .filter((t) => before[t] !== after[t])
    .map((t) => `${t} ${before[t]} -> ${after[t]}`);
}

describe.each(DRIVERS)('fuzzed boundary (%s)', (driver) => {
  let target: FuzzTarget;
  let counter: RowCounter;
  let routes: RouteEntry[];
  beforeAll(async () => {
    target = await startFuzzTarget(driver);
    counter = await openRowCounter(target.h);
    routes = routesOf(target.h.app);
  });
  afterAll(async () => {
    await counter?.close();
    await target?.h.close();
  });

  it('reads the route table from the app, device API and dashboard included', () => {
    const names = routes.map((r) => `${r.method} ${r.url}`);
    for (const expected of [
      'POST /v1/notifications',
      'POST /v1/notifications/batch',
      'POST /v1/campaigns',
      'POST /v1/audiences',
      'POST /v1/webhooks',
      'POST /v1/callbacks/:providerAccountId',
      'POST /v1/templates/:id/versions/:v/preview',
      'POST /v1/session',
      `PATCH ${target.ctx.deviceBasePath}/message`,
      'GET /dashboard/*',
      'POST /3rdparty/v1/message',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it('refuses a body over each route’s limit with 413 before reading it, and writes nothing', async () => {
    const { h, ctx } = target;
    const limits: [RegExp, number][] = [
      [/^\/v1\/notifications\/batch$/, 16 * 1024 * 1024],
      [/^\/v1\/audiences$/, 200 * 1024 * 1024],
      [/^\/v1\/callbacks\//, 1024 * 1024],
      [/^\/v1\/unsubscribe\//, 4096],
    ];
    const before = await counter.counts();
    const bodyRoutes = routes.filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method));
    expect(bodyRoutes.length).toBeGreaterThan(30);
    for (const route of bodyRoutes) {
      const limit = limits.find(([re]) => re.test(route.url))?.[1] ?? 256 * 1024;
      const url = route.url.replace(/:([A-Za-z0-9_]+)|\*/g, () => ctx.ids[0]!);
      const device = route.url.startsWith(ctx.deviceBasePath);
      const authorization = device
        ? `Bearer ${ctx.deviceToken}`
        : route.url.startsWith('/3rdparty/')
          ? `Basic ${Buffer.from(`x:${ctx.apiKey}`).toString('base64')}`
          : `Bearer ${ctx.apiKey}`;
      // A declared length over the limit is refused on the header alone: no bytes need to follow.
      const res = await h.app.inject({
        method: route.method as 'POST',
        url,
        headers: { authorization, 'content-type': route.mediaTypes[0]!, 'content-length': String(limit + 1) },
        payload: '{}',
      });
      expect(res.statusCode, `${route.method} ${route.url}: ${res.body.slice(0, 200)}`).toBe(413);
      if (!device && !route.url.startsWith('/3rdparty/')) expect(ERROR_CODES[res.json().code as keyof typeof ERROR_CODES]?.status, route.url).toBe(413);
    }
    expect(changed(before, await counter.counts())).toEqual([]);
  });

  it(`answers ${RUNS} generated requests without a 5xx, an unregistered refusal or a half-written row (seed ${SEED})`, async () => {
    console.log(`fuzz ${driver}: ${RUNS} runs, seed ${SEED} (FUZZ_SEED/FUZZ_RUNS override) over ${routes.length} routes`);
    const { h, ctx } = target;
    const arb = fc.constantFrom(...routes).chain((route) => requestsFor(route, ctx));
    let counts = await counter.counts();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(arb, async (req: FuzzRequest) => {
        const res = await answered(
          h.app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.payload === undefined ? {} : { payload: req.payload }) }),
          req,
        );
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        const problem = answerProblem(req, res, ctx.deviceBasePath);
        if (problem) throw new Error(`${req.method} ${req.url.slice(0, 200)} [${req.what}]: ${problem}`);
        const after = await counter.counts();
        if (res.statusCode >= 400) {
          const diff = changed(counts, after);
          if (diff.length)
            throw new Error(`${req.method} ${req.url.slice(0, 200)} [${req.what}] refused ${res.statusCode} but changed rows: ${diff.join(', ')}`);
        }
        counts = after;
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(`fuzz ${driver}: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    // Still alive and still itself.
    expect((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await h.get('/v1/notifications/' + ctx.ids[0])).status).toBe(200);
  }, 600_000);
});
