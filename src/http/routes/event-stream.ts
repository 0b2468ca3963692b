/**
 * GET /v1/events/stream: the tenant's outbox as server-sent events (`event: <type>`, `id: <outbox
 * id>`, `data: <json>`), the same events webhooks carry, for the dashboard's live views. A
 * reconnecting client sends `Last-Event-ID` and gets what it missed (while the outbox still
 * holds it: rows are pruned after the webhook relay publishes them); a new one starts at the
 * newest event. New rows are read at once when this process wrote them (OutboxSignal), else by
 * a poll every second; a comment line every 15 s keeps proxies from closing an idle stream.
 *
 * Best effort on PostgreSQL: outbox ids come from a sequence, so a transaction that took an id
 * and commits after a later one's can be passed over by a stream that already read the later
 * id. The dashboard treats events as hints to re-read, never as the record (docs/dashboard.md).
 */
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';
import type { Store } from '../../store/store.js';
import type { OutboxSignal } from '../outbox-signal.js';

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
}

/** Registers GET /v1/events/stream on an authenticated scope (bearer key or session cookie). */
export function eventStreamRoutes(app: FastifyInstance, deps: EventStreamDeps): void {
  const pollMs = deps.pollMs ?? 1000;
  const heartbeatMs = deps.heartbeatMs ?? 15_000;
  // Every stream ends before the server closes (or close would wait for browsers to hang up).
  const open = new Set<{ end: () => void; socket: Socket }>();
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
      const given = request.headers['last-event-id'];
      let cursor = given !== undefined ? Number(given) : await deps.store.eventStream.lastOutboxId();

      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        // nginx: do not buffer the stream.
        'x-accel-buffering': 'no',
      });
      // Tell the browser how long to wait before reconnecting, and open the stream at once.
      raw.write('retry: 2000\n\n');

      let closed = false;
      let wake: (() => void) | null = null;
      const socket = request.raw.socket;
      const entry = {
        socket,
        end: () => {
          if (closed) return;
          closed = true;
          wake?.();
          raw.end(() => socket.destroy());
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

      try {
        while (!closed) {
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
        unlisten();
        open.delete(entry);
      }
    },
  );
}
