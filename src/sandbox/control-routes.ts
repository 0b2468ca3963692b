/**
 * The sandbox's control API: the ledger (what it accepted), the fault switchboard, the
 * health check, and (settings-routes.ts) behaviour, quota and callback registrations.
 * Unauthenticated on purpose: the sandbox is a test referee on localhost, and tests must be
 * able to inspect it even when they configure a wrong provider key.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isChannel } from '../domain/index.js';
import type { AcceptanceMemory } from './acceptance-memory.js';
import { FaultSpecError, type FaultController } from './faults.js';
import { parseJsonBody, readBody, writeJson } from './http-messages.js';
import type { Ledger, LedgerFilter } from './ledger.js';
import { handleSettings, SETTINGS_METHODS, type SettingsContext } from './settings-routes.js';

export interface ControlContext extends SettingsContext {
  ledger: Ledger;
  faults: FaultController;
  /** Cleared with the ledger: a fresh ledger replays nothing. */
  memory: AcceptanceMemory;
}

const CONTROL_METHODS: Record<string, readonly string[]> = {
  '/healthz': ['GET'],
  '/ledger': ['GET', 'DELETE'],
  '/ledger/per-second': ['GET'],
  '/faults': ['GET', 'POST', 'DELETE'],
  ...SETTINGS_METHODS,
};

/** True when the path belongs to the control API (whatever the method). */
export function isControlPath(pathname: string): boolean {
  return Object.hasOwn(CONTROL_METHODS, pathname);
}

function ledgerFilter(query: URLSearchParams): LedgerFilter | string {
  const filter: LedgerFilter = {};
  const key = query.get('idempotency_key');
  if (key !== null) filter.idempotency_key = key;
  const channel = query.get('channel');
  if (channel !== null) {
    if (!isChannel(channel)) return 'channel must be one of email, sms, push';
    filter.channel = channel;
  }
  return filter;
}

/** Answers one control request; the caller has checked isControlPath. */
export async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL, ctx: ControlContext): Promise<void> {
  const method = req.method ?? 'GET';
  const allowed = CONTROL_METHODS[url.pathname] ?? [];
  if (!allowed.includes(method)) {
    writeJson(res, 405, { error: 'method_not_allowed' }, { allow: allowed.join(', ') });
    return;
  }
  const read = await readBody(req);
  if (!read.ok) {
    if (read.reason === 'too_large') {
      writeJson(res, 413, { error: 'payload_too_large' }, { connection: 'close' });
    }
    return;
  }

  if (Object.hasOwn(SETTINGS_METHODS, url.pathname)) {
    await handleSettings(method, url, read.body, res, ctx);
    return;
  }
  switch (`${method} ${url.pathname}`) {
    case 'GET /healthz':
      writeJson(res, 200, { status: 'ok' });
      return;
    case 'GET /ledger': {
      const filter = ledgerFilter(url.searchParams);
      if (typeof filter === 'string') {
        writeJson(res, 400, { error: 'invalid_request', field: 'channel', message: filter });
        return;
      }
      writeJson(res, 200, { entries: ctx.ledger.entries(filter) });
      return;
    }
    case 'GET /ledger/per-second': {
      const filter = ledgerFilter(url.searchParams);
      if (typeof filter === 'string') {
        writeJson(res, 400, { error: 'invalid_request', field: 'channel', message: filter });
        return;
      }
      writeJson(res, 200, ctx.ledger.perSecond(filter.channel));
      return;
    }
    case 'DELETE /ledger':
      ctx.ledger.clear();
      ctx.memory.clear();
      writeJson(res, 200, { entries: [] });
      return;
    case 'GET /faults':
      writeJson(res, 200, { faults: ctx.faults.list() });
      return;
    case 'DELETE /faults':
      ctx.faults.clear();
      writeJson(res, 200, { faults: [] });
      return;
    case 'POST /faults': {
      const body = parseJsonBody(read.body);
      if (body === null) {
        writeJson(res, 400, { error: 'invalid_fault', field: 'body', message: 'body must be JSON' });
        return;
      }
      try {
        // set() validates; the FaultSpec cast only satisfies the type, never skips a check.
        ctx.faults.set(body as Parameters<FaultController['set']>[0]);
      } catch (error) {
        if (!(error instanceof FaultSpecError)) throw error;
        writeJson(res, 400, { error: 'invalid_fault', field: error.field, message: error.message });
        return;
      }
      writeJson(res, 200, { faults: ctx.faults.list() });
      return;
    }
  }
}
