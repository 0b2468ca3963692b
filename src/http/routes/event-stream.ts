/**
 * GET /v1/events/stream: the tenant's outbox as server-sent events (`event: <type>`, `id: <outbox
 * id>`, `data: <json>`), the same events webhooks carry, for the dashboard's live views. A
 * reconnecting client sends `Last-Event-ID` and gets what it missed (while the outbox still
 * holds it: rows are pruned after the webhook relay publishes them); a new one starts at the
 * newest event. New rows are read at once when this process wrote them (OutboxSignal), else by
 * a poll every second; a comment line every 15 s keeps proxies from closing an idle stream.
 *
 * A stream opened with the session cookie re-reads its session from the store every
 * `sessionCheckMs` (default 5 s): once the session is revoked, expires or goes idle, by any
 * process, the stream sends `event: session.ended` and closes, so a signed-out dashboard stops
 * receiving the tenant's events within seconds rather than at its next reconnect.
 *
 * The response says `Connection: close`: a stream's connection carries nothing after it. Ending
 * the stream ends the connection (Node closes the socket once the last chunk is flushed), and a
 * keep-alive client, told so up front, never sends its next request on a socket that is closing.
 * (Advertising keep-alive and then destroying the socket raced a client's reconnect: undici sent
 * it on the old socket and got "other side closed"; issue 23.)
 *
 * Best effort on PostgreSQL: outbox ids come from a sequence, so a transaction that took an id
 * and commits after a later one's can be passed over by a stream that already read the later
 * id. The dashboard treats events as hints to re-read, never as the record (docs/dashboard.md).
 */
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/store.js';
import type { OutboxSignal } from '../outbox-signal.js';
import { sessionStillLive, type SessionAuth } from '../session-auth.js';

/** One read's worth of events; a backlog is sent in several. */
const BATCH = 200;

export interface EventStreamDeps {
  store: Store;
  /** This process's commits of outbox rows (absent: polling only). */
  signal?: OutboxSignal | null;
  /** How often a stream reads the store when not signalled. Default 1000 ms. */
  pollMs?: number;
  /** How often a comment line is sent on an idle stream. Default 15 000 ms. */
  heartbeatMs?: number;
  /** The dashboard's sessions (null: no dashboard); a session's stream ends with it. */
  sessions?: SessionAuth | null;
  /** How often a session's stream re-reads its session. Default 5000 ms. */
  sessionCheckMs?: number;
}

/** Registers GET /v1/events/stream on an authenticated scope (bearer key or session cookie). */
export function eventStreamRoutes(app: FastifyInstance, deps: EventStreamDeps): void {
  const pollMs = deps.pollMs ?? 1000;
  const heartbeatMs = deps.heartbeatMs ?? 15_000;
  // 5 s: one indexed read per open stream every few seconds; a revoked session's stream ends within it.
  const sessionCheckMs = deps.sessionCheckMs ?? 5_000;
  const sessions = deps.sessions ?? null;
  // Every stream ends before the server closes (or close would wait for browsers to hang up).
  const open = new Set<{ end: () => void }>();
  app.addHook('preClose', async () => {
    for (const s of [...open]) s.end();
  });

  app.get<{ Headers: { 'last-event-id'?: string } }>(
    '/v1/events/stream',
    {
      schema: {
        summary: "The tenant's outbox events as server-sent events",
        description:
          '`text/event-stream`: `event: <type>`, `id: <outbox id>`, `data: <the webhook payload>`. Send `Last-Event-ID` to resume; without it the stream ' +
          'starts at the newest event. A `: keep-alive` comment every 15 s. Authenticated like every /v1 route (bearer key or session cookie).',
        tags: ['events'],
        headers: { type: 'object', properties: { 'last-event-id': { type: 'string', pattern: '^[0-9]{1,15}$' } } },
      },
    },
    async (request, reply) => {
      const tenantId = request.tenantId;
      // Only a stream opened with the session cookie follows a session; a bearer key's has none.
      const bySession = sessions !== null && request.principal?.session != null;
      let sessionCheckDue = false;
      const given = request.headers['last-event-id'];
      let cursor = given !== undefined ? Number(given) : await deps.store.eventStream.lastOutboxId();

      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // The connection ends with the stream (see the header comment): no client may reuse it.
        connection: 'close',
        // nginx: do not buffer the stream.
        'x-accel-buffering': 'no',
      });
      // Tell the browser how long to wait before reconnecting, and open the stream at once.
      raw.write('retry: 2000\n\n');

      let closed = false;
      let wake: (() => void) | null = null;
      const entry = {
        // With `Connection: close`, Node half-closes and then destroys the socket once the last chunk is flushed.
        end: () => {
          if (closed) return;
          closed = true;
          wake?.();
          raw.end();
        },
      };
      open.add(entry);
      const unlisten = deps.signal?.listen(() => wake?.()) ?? (() => {});
      raw.on('close', () => {
        closed = true;
        open.delete(entry);
        wake?.();
      });
      const heartbeat = setInterval(() => {
        if (!closed) raw.write(': keep-alive\n\n');
      }, heartbeatMs);
      // Whether the session is live is the store's answer (judged by the sessions' clock); this only paces the reads.
      const sessionCheck = bySession
        ? setInterval(() => {
            sessionCheckDue = true;
            wake?.();
          }, sessionCheckMs)
        : null;

      try {
        while (!closed) {
          if (sessionCheckDue) {
            sessionCheckDue = false;
            if (!(await sessionStillLive(request, deps.store, sessions!))) {
              if (!closed)
                raw.write(`event: session.ended\ndata: ${JSON.stringify({ code: 'unauthorized', detail: 'the session has expired or was revoked' })}\n\n`);
              entry.end();
              break;
            }
          }
          const events = await deps.store.eventStream.readOutbox(tenantId, cursor, BATCH);
          for (const e of events) {
            // One line of JSON: SSE data lines must not contain a newline.
            const data = JSON.stringify({ ...e.payload, outbox_id: e.id });
            raw.write(`event: ${e.type}\nid: ${e.id}\ndata: ${data}\n\n`);
            cursor = e.id;
          }
          if (events.length === BATCH) continue;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, pollMs);
            function done() {
              clearTimeout(timer);
              wake = null;
              resolve();
            }
            wake = done;
          });
        }
      } catch (err) {
        request.log.error({ err }, 'event stream ended by an error');
        entry.end();
      } finally {
        clearInterval(heartbeat);
        if (sessionCheck !== null) clearInterval(sessionCheck);
        unlisten();
        open.delete(entry);
      }
    },
  );
}
