/**
 * GET /v1/events/stream read by a real HTTP client (fetch over a listening server), on both
 * drivers: an event committed in this process arrives at once through the outbox signal (the
 * poll is set to a minute, so only the signal can explain it), one committed elsewhere arrives
 * by the poll, Last-Event-ID resumes after an id, a heartbeat comment keeps an idle stream
 * alive, the session cookie works as well as a bearer key, another tenant's events never
 * show, and a session's stream ends (with `event: session.ended`) once the session is revoked
 * in another process or expires.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ReplayService } from '../../src/delivery/replay-service.js';
import { buildApp } from '../../src/http/app.js';
import { OutboxSignal } from '../../src/http/outbox-signal.js';
import { IntakeService } from '../../src/intake/intake-service.js';
import { createHarness, DRIVERS, otpBody, type Harness, silentLogger } from '../helpers/harness.js';
import { buildNotification } from '../store/fixtures.js';

interface SseEvent {
  event: string | null;
  id: string | null;
  data: string | null;
  comment: string | null;
}

/** Opens the stream and collects its events as they come. */
async function openStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const reader = res.body!.getReader();
  let buffer = '';
  const pump = (async () => {
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const e: SseEvent = { event: null, id: null, data: null, comment: null };
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) e.comment = line.slice(1).trim();
          else if (line.startsWith('event: ')) e.event = line.slice(7);
          else if (line.startsWith('id: ')) e.id = line.slice(4);
          else if (line.startsWith('data: ')) e.data = line.slice(6);
        }
        events.push(e);
      }
    }
  })();
  return {
    res,
    events,
    /** Resolves when the server ends the stream. */
    ended: pump,
    /** Resolves with the first event matching, polling what arrived (deadline 5 s). */
    async waitFor(match: (e: SseEvent) => boolean, ms = 5000): Promise<SseEvent> {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = events.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching event in ${ms} ms; got ${JSON.stringify(events)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      controller.abort();
      await pump;
    },
  };
}

describe.each(DRIVERS)('GET /v1/events/stream on %s', (driver) => {
  let h: Harness;
  let apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const a of apps) await a.close();
    apps = [];
    await h.close();
  });

  /** A second API over the harness's store, listening; its intake signals its streams. */
  async function serve(opts: { pollMs: number; heartbeatMs?: number; sessionCheckMs?: number; signal: boolean }) {
    const signal = opts.signal ? new OutboxSignal() : null;
    const intake = new IntakeService({
      store: h.store,
      accounts: h.config.provider_accounts,
      clock: h.clock,
      logger: silentLogger,
      wake: () => signal?.notify(),
    });
    const app = await buildApp({
      store: h.store,
      intake,
      replay: new ReplayService({ store: h.store, clock: h.clock }),
      clock: h.clock,
      outboxSignal: signal,
      eventStreamPollMs: opts.pollMs,
      ...(opts.heartbeatMs !== undefined ? { eventStreamHeartbeatMs: opts.heartbeatMs } : {}),
      ...(opts.sessionCheckMs !== undefined ? { eventStreamSessionCheckMs: opts.sessionCheckMs } : {}),
    });
    apps.push(app);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    return { app, url };
  }
  const bearer = () => ({ authorization: `Bearer ${h.apiKey}` });

  it('pushes this process’s new events at once, and resumes after Last-Event-ID', async () => {
    h = await createHarness({ driver });
    const before = await h.send(otpBody({ recipient: { id: 'early', phone: '+14155550101' } }));
    const { app, url } = await serve({ pollMs: 60_000, signal: true });
    const stream = await openStream(`${url}/v1/events/stream`, bearer());
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // A new stream starts at the newest event: the earlier notification is not replayed.
    await stream.waitFor((e) => e.comment === null && e.event === null); // the retry: line
    const sent = await app.inject({ method: 'POST', url: '/v1/notifications', headers: bearer(), payload: otpBody() });
    expect(sent.statusCode).toBe(202);
    const created = await stream.waitFor((e) => e.event === 'notification.created');
    expect(JSON.parse(created.data!)).toMatchObject({ notification_id: sent.json().id });
    expect(stream.events.some((e) => e.data?.includes(before.json.id as string))).toBe(false);
    await stream.close();

    // Resume from just before: the same event again, and nothing older.
    const resumed = await openStream(`${url}/v1/events/stream`, { ...bearer(), 'last-event-id': String(Number(created.id) - 1) });
    const again = await resumed.waitFor((e) => e.event === 'notification.created');
    expect(again.id).toBe(created.id);
    await resumed.close();
  });

  it('finds events another process committed by polling, takes the session cookie, and keeps tenants apart', async () => {
    h = await createHarness({ driver });
    const { url } = await serve({ pollMs: 100, signal: false });
    const s = await h.app.inject({ method: 'POST', url: '/v1/session', payload: { api_key: h.apiKey } });
    const cookie = String(s.headers['set-cookie']).split(';')[0]!;
    const stream = await openStream(`${url}/v1/events/stream`, { cookie });
    expect(stream.res.status).toBe(200);
    // Another tenant's notification, then ours, both through the harness's own app (another "process").
    await h.store.ensureTenant({ id: 't_other', name: 'Other' }, h.clock.now());
    const theirs = buildNotification({ tenantId: 't_other', createdAt: h.clock.now(), deliveries: [{ channel: 'sms', providerAccount: 'sms-x' }] });
    await h.store.createNotification(theirs);
    const ours = await h.send(otpBody());
    const got = await stream.waitFor((e) => e.event === 'notification.created');
    expect(JSON.parse(got.data!)).toMatchObject({ notification_id: ours.json.id });
    expect(stream.events.some((e) => e.data?.includes(theirs.id))).toBe(false);
    await stream.close();
    const unauth = await fetch(`${url}/v1/events/stream`);
    expect(unauth.status).toBe(401);
  });

  it('writes a keep-alive comment on an idle stream', async () => {
    h = await createHarness({ driver });
    const { url } = await serve({ pollMs: 60_000, heartbeatMs: 100, signal: true });
    const stream = await openStream(`${url}/v1/events/stream`, bearer());
    expect((await stream.waitFor((e) => e.comment === 'keep-alive')).event).toBeNull();
    await stream.close();
  });

  /** Signs in with the harness's key through the harness's own app (another "process"): the cookie and the CSRF token. */
  async function signIn() {
    const s = await h.app.inject({ method: 'POST', url: '/v1/session', payload: { api_key: h.apiKey } });
    expect(s.statusCode).toBe(201);
    return { cookie: String(s.headers['set-cookie']).split(';')[0]!, csrf: String(s.json().csrf_token) };
  }

  it('ends a session’s stream once another process revokes the session; a bearer stream and another session’s stay open', async () => {
    h = await createHarness({ driver });
    // The poll is a minute and signing out commits no outbox row: only the session check can end the stream.
    const { app, url } = await serve({ pollMs: 60_000, sessionCheckMs: 50, signal: true });
    const mine = await signIn();
    const theirs = await signIn();
    const stream = await openStream(`${url}/v1/events/stream`, { cookie: mine.cookie });
    const other = await openStream(`${url}/v1/events/stream`, { cookie: theirs.cookie });
    const keyed = await openStream(`${url}/v1/events/stream`, bearer());
    expect(stream.res.status).toBe(200);
    await stream.waitFor((e) => e.comment === null && e.event === null); // the retry: line: the stream is open

    const out = await h.app.inject({ method: 'DELETE', url: '/v1/session', headers: { cookie: mine.cookie, 'x-csrf-token': mine.csrf } });
    expect(out.statusCode).toBe(204);
    const ended = await stream.waitFor((e) => e.event === 'session.ended');
    expect(JSON.parse(ended.data!)).toMatchObject({ code: 'unauthorized' });
    await stream.ended;
    // Reconnecting with the revoked cookie is refused.
    expect((await fetch(`${url}/v1/events/stream`, { headers: { cookie: mine.cookie } })).status).toBe(401);

    // The others still carry events: another session's, and a bearer key's (no session to end).
    const sent = await app.inject({ method: 'POST', url: '/v1/notifications', headers: bearer(), payload: otpBody() });
    expect(sent.statusCode).toBe(202);
    for (const s of [other, keyed]) {
      const got = await s.waitFor((e) => e.event === 'notification.created');
      expect(JSON.parse(got.data!)).toMatchObject({ notification_id: sent.json().id });
      expect(s.events.some((e) => e.event === 'session.ended')).toBe(false);
    }
    await other.close();
    await keyed.close();
  });

  it('ends a session’s stream when the session expires', async () => {
    h = await createHarness({ driver });
    const { url } = await serve({ pollMs: 60_000, sessionCheckMs: 50, signal: false });
    const { cookie } = await signIn();
    const stream = await openStream(`${url}/v1/events/stream`, { cookie });
    await stream.waitFor((e) => e.comment === null && e.event === null);
    // Past the idle timeout (1 h by default) of a session nobody used since.
    h.clock.advance(3_600_000 + 1);
    await stream.waitFor((e) => e.event === 'session.ended');
    await stream.ended;
  });
});
