/**
 * Reading request bodies and writing JSON answers for the sandbox's node:http server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

// 1 MiB: far above any notification the sandbox is meant to receive.
export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyRead = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

/** Reads the whole request body, stopping (and reporting too_large) past MAX_BODY_BYTES. */
export function readBody(req: IncomingMessage): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyRead): void => {
      if (done) return;
      done = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        finish({ ok: false, reason: 'too_large' });
        return;
      }
      if (!done) chunks.push(chunk);
    });
    req.on('end', () => finish({ ok: true, body: Buffer.concat(chunks) }));
    req.on('error', () => finish({ ok: false, reason: 'aborted' }));
    req.on('close', () => finish({ ok: false, reason: 'aborted' }));
  });
}

/** Writes one JSON response; a client that already went away is ignored. */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
  });
  res.end(payload);
}

/** Parses a JSON request body, returning undefined for an empty body and null for bad JSON. */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}
