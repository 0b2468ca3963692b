/**
 * The control API for how the sandbox behaves when nothing is broken: `/behaviour` (dedupe by
 * key, callback behaviour), `/quota` (sends per second per channel), `/callbacks/<channel>`
 * (the webhook URL and secret, like a provider dashboard) and `/idle` (wait until no
 * callback is scheduled or in flight). Each setting is validated by the class that owns it,
 * which also backs the in-process API on the sandbox handle.
 */
import type { ServerResponse } from 'node:http';
import { CHANNELS, type Channel } from '../domain/index.js';
import type { BehaviourController } from './behaviour.js';
import type { CallbackDispatcher } from './callback-dispatcher.js';
import { parseJsonBody, writeJson } from './http-messages.js';
import type { QuotaController } from './quota.js';
import { SpecError } from './spec-error.js';

export interface SettingsContext {
  behaviour: BehaviourController;
  quota: QuotaController;
  callbacks: CallbackDispatcher;
}

/** Paths and methods of the settings routes, for the control API's method check. */
export const SETTINGS_METHODS: Record<string, readonly string[]> = {
  '/behaviour': ['GET', 'PUT', 'DELETE'],
  '/quota': ['GET', 'PUT', 'DELETE'],
  '/callbacks': ['GET'],
  '/idle': ['GET'],
  ...Object.fromEntries(CHANNELS.map((channel) => [`/callbacks/${channel}`, ['GET', 'PUT', 'DELETE']])),
};

// Ten minutes, as for a fault's latency: longer than any test should wait for quiet.
const MAX_IDLE_WAIT_MS = 600_000;

/** Applies a validated change, answering 400 with the error code and offending field if it throws. */
function applyJson(res: ServerResponse, raw: Buffer, error: string, apply: (body: unknown) => unknown): void {
  const body = parseJsonBody(raw);
  if (body === null || body === undefined) {
    writeJson(res, 400, { error, field: 'body', message: 'body must be JSON' });
    return;
  }
  let answer: unknown;
  try {
    answer = apply(body);
  } catch (caught) {
    if (!(caught instanceof SpecError)) throw caught;
    writeJson(res, 400, { error, field: caught.field, message: caught.message });
    return;
  }
  writeJson(res, 200, answer);
}

async function waitIdle(res: ServerResponse, url: URL, callbacks: CallbackDispatcher): Promise<void> {
  const given = url.searchParams.get('timeout_ms');
  const timeoutMs = given === null ? 30_000 : Number(given);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_IDLE_WAIT_MS) {
    writeJson(res, 400, { error: 'invalid_request', field: 'timeout_ms', message: `timeout_ms must be an integer from 0 to ${MAX_IDLE_WAIT_MS}` });
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const idle = await Promise.race([
    callbacks.idle().then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  writeJson(res, 200, { idle, counters: callbacks.counters() });
}

/** Answers one settings request; the caller has checked the path and method against SETTINGS_METHODS. */
export async function handleSettings(method: string, url: URL, raw: Buffer, res: ServerResponse, ctx: SettingsContext): Promise<void> {
  const { behaviour, quota, callbacks } = ctx;
  if (url.pathname.startsWith('/callbacks/')) {
    const channel = url.pathname.slice('/callbacks/'.length) as Channel;
    if (method === 'PUT') {
      applyJson(res, raw, 'invalid_callback', (body) => ({
        channel,
        ...callbacks.register(channel, body as { url: string; secret?: string }),
      }));
    } else if (method === 'DELETE') {
      callbacks.unregister(channel);
      writeJson(res, 200, { callbacks: callbacks.registrations() });
    } else {
      const registration = callbacks.registrations()[channel];
      if (registration === undefined) writeJson(res, 404, { error: 'not_registered' });
      else writeJson(res, 200, { channel, ...registration });
    }
    return;
  }
  switch (`${method} ${url.pathname}`) {
    case 'GET /behaviour':
      writeJson(res, 200, { behaviour: behaviour.get() });
      return;
    case 'PUT /behaviour':
      applyJson(res, raw, 'invalid_behaviour', (body) => ({ behaviour: behaviour.set(body as object) }));
      return;
    case 'DELETE /behaviour':
      writeJson(res, 200, { behaviour: behaviour.reset() });
      return;
    case 'GET /quota':
      writeJson(res, 200, { quota: quota.get() });
      return;
    case 'PUT /quota':
      applyJson(res, raw, 'invalid_quota', (body) => ({ quota: quota.set(body as object) }));
      return;
    case 'DELETE /quota':
      quota.clear();
      writeJson(res, 200, { quota: quota.get() });
      return;
    case 'GET /callbacks':
      writeJson(res, 200, { callbacks: callbacks.registrations(), counters: callbacks.counters() });
      return;
    case 'GET /idle':
      await waitIdle(res, url, callbacks);
      return;
  }
}
