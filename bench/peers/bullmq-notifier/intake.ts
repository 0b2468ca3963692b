/**
 * The BullMQ notifier's HTTP intake (a child process of the benchmarks): node:http, bearer API
 * key, and three routes shaped like Herald's so the benchmark's clients work unchanged:
 *
 * - `POST /v1/notifications`: validates the body (notification.ts) and adds one job to the
 *   queue at its purpose's priority (codes first); 202 once Redis has it. Redis runs without
 *   persistence, so "accepted" here is not durable, unlike Herald's 202.
 * - `POST /v1/audiences`: NDJSON `{"id","phone"}` lines, streamed into a Redis list; 201 {id, size}.
 * - `POST /v1/campaigns` `{audience_id, content: {text}}`: answers 202 at once, then reads the
 *   list 1,000 at a time and adds each chunk with `addBulk` at the campaign priority.
 *
 * Environment: PEER_REDIS_URL, PEER_PREFIX (BullMQ key prefix), PEER_API_KEY. Prints
 * `peer intake listening on <url>` when ready.
 */
import { timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import { Queue } from 'bullmq';
import { isValidPhoneNumber } from 'libphonenumber-js';
import { checkNotification, DEFAULT_TTL_SECONDS, PRIORITY, problem, type SmsJob } from './notification.js';
import { JOB_OPTIONS, peerEnv, QUEUE_NAME, redisConnection } from './queue.js';

const prefix = peerEnv('PEER_PREFIX');
const apiKey = Buffer.from(`Bearer ${peerEnv('PEER_API_KEY')}`);
const redis = redisConnection(peerEnv('PEER_REDIS_URL'));
const queue = new Queue<SmsJob>(QUEUE_NAME, { connection: redis, prefix });
const MAX_BODY = 1024 * 1024;
const FANOUT_CHUNK = 1_000;
let audiences = 0;
let campaigns = 0;

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function refuse(
  res: ServerResponse,
  status: number,
  code: string,
  title: string,
  instance: string,
  errors: Array<{ field: string; message: string }> = [],
): void {
  send(res, status, problem(status, code, title, instance, errors), 'application/problem+json');
}

function authorized(req: IncomingMessage): boolean {
  const given = Buffer.from(req.headers.authorization ?? '');
  return given.length === apiKey.length && timingSafeEqual(given, apiKey);
}

/** The whole body as JSON, or null after answering 400/413 itself. */
async function jsonBody(req: IncomingMessage, res: ServerResponse, instance: string): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) {
      refuse(res, 413, 'payload_too_large', 'The request body is too large', instance);
      return null;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    refuse(res, 400, 'invalid_json', 'The body is not valid JSON', instance);
    return null;
  }
}

async function postNotification(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const now = Date.now();
  const body = await jsonBody(req, res, '/v1/notifications');
  if (body === null) return;
  const checked = checkNotification(body, now);
  if (!checked.ok) return refuse(res, 400, 'validation_failed', 'The request has invalid or unknown fields', '/v1/notifications', checked.errors);
  const job = await queue.add('sms', checked.job, { ...JOB_OPTIONS, priority: PRIORITY[checked.job.purpose] });
  send(res, 202, { id: `ntf_${job.id}`, status: 'queued', channels: ['sms'] });
}

async function postAudience(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = `aud_${process.pid}_${++audiences}`;
  const key = `${prefix}:audience:${id}`;
  let size = 0;
  let pending: string[] = [];
  const lines = createInterface({ input: req, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      row = null;
    }
    const phone = (row as { phone?: unknown } | null)?.phone;
    if (typeof phone !== 'string' || !isValidPhoneNumber(phone)) {
      await redis.del(key);
      req.resume();
      return refuse(res, 400, 'audience_invalid', 'The audience has an invalid line', '/v1/audiences', [
        { field: `line ${size + 1}`, message: 'must be a JSON object with a valid E.164 phone' },
      ]);
    }
    pending.push(phone);
    size++;
    if (pending.length === FANOUT_CHUNK) {
      await redis.rpush(key, ...pending);
      pending = [];
    }
  }
  if (pending.length > 0) await redis.rpush(key, ...pending);
  if (size === 0) return refuse(res, 422, 'audience_empty', 'The audience has no recipients', '/v1/audiences');
  send(res, 201, { id, size });
}

/** Adds every recipient of the audience as a job, 1,000 per addBulk, at the campaign priority. */
async function fanOut(audienceKey: string, size: number, text: string, startedAt: number): Promise<void> {
  const expiresAt = startedAt + DEFAULT_TTL_SECONDS.marketing * 1000;
  for (let offset = 0; offset < size; offset += FANOUT_CHUNK) {
    const phones = await redis.lrange(audienceKey, offset, offset + FANOUT_CHUNK - 1);
    await queue.addBulk(
      phones.map((to) => ({
        name: 'sms',
        data: { to, text, purpose: 'marketing' as const, receivedAt: startedAt, expiresAt },
        opts: { ...JOB_OPTIONS, priority: PRIORITY.marketing },
      })),
    );
  }
}

async function postCampaign(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const startedAt = Date.now();
  const body = (await jsonBody(req, res, '/v1/campaigns')) as { audience_id?: unknown; content?: { text?: unknown } } | null;
  if (body === null) return;
  const text = body.content?.text;
  if (typeof body.audience_id !== 'string' || typeof text !== 'string' || text === '') {
    return refuse(res, 400, 'validation_failed', 'The request has invalid or unknown fields', '/v1/campaigns', [
      { field: 'audience_id', message: 'and content.text are required strings' },
    ]);
  }
  const audienceKey = `${prefix}:audience:${body.audience_id}`;
  const size = await redis.llen(audienceKey);
  if (size === 0) return refuse(res, 404, 'not_found', 'No such audience', '/v1/campaigns');
  const id = `cmp_${process.pid}_${++campaigns}`;
  send(res, 202, { id, status: 'running', size });
  fanOut(audienceKey, size, text, startedAt).catch((err: Error) => process.stderr.write(`campaign ${id} fan-out failed: ${err.message}\n`));
}

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
  '/v1/notifications': postNotification,
  '/v1/audiences': postAudience,
  '/v1/campaigns': postCampaign,
};

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0]!;
  const route = routes[path];
  if (!route || req.method !== 'POST') {
    req.resume();
    return refuse(res, 404, 'not_found', 'No such route', path);
  }
  if (!authorized(req)) {
    req.resume();
    return refuse(res, 401, 'unauthorized', 'Missing or invalid API key', path);
  }
  route(req, res).catch((err: Error) => {
    process.stderr.write(`${path}: ${err.message}\n`);
    if (!res.headersSent) refuse(res, 503, 'service_unavailable', 'The queue is unavailable', path);
  });
});
server.keepAliveTimeout = 65_000;

await queue.waitUntilReady();
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  process.stdout.write(`peer intake listening on http://127.0.0.1:${address.port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close();
    void queue.close().finally(() => process.exit(0));
  });
}
