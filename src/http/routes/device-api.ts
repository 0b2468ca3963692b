/**
 * The device API: what the published SMSGate app (capcom6/android-sms-gateway, private server,
 * notification channel "SSE only") calls, under `devices.base_path` (default /mobile/v1, the
 * reference server's). Paths, bodies, statuses and error shapes are the reference server's
 * (android-sms-gateway/server `handlers/mobile.go`, `handlers/messages/mobile.go`): errors are
 * `{"message": "..."}`, not problem documents, and a 401 makes the app register again. Not behind
 * API keys: a device authenticates with its own token (registration: the account's private
 * token, a login, or a one-time code). Hidden from the OpenAPI document; docs/phone-gateway.md
 * describes it. Handlers only move bytes: src/devices/device-service.ts decides.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DeviceGateway } from '../../devices/device-gateway.js';
import { readCredentials, type MobileAnswer } from '../../devices/device-service.js';
import type { DeviceRecord } from '../../store/store.js';
import { HeraldError } from '../../errors.js';

const hidden = { schema: { hide: true } };

function send(reply: FastifyReply, a: MobileAnswer): FastifyReply {
  reply.code(a.status);
  return a.body === undefined ? reply.send() : reply.type('application/json').send(a.body);
}

/** Registers the device API in its own scope under the gateway's base path. */
export async function deviceApiRoutes(app: FastifyInstance, gateway: DeviceGateway, origin: string | null = null): Promise<void> {
  const { service, hub } = gateway;
  await app.register(
    async (scope) => {
      scope.setErrorHandler((error: FastifyError, request, reply) => {
        const status =
          error instanceof HeraldError ? error.status : error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
        if (status === 500) request.log.error({ err: error }, 'device API error');
        const message = status === 500 ? 'Internal Server Error' : error.code?.startsWith('FST_ERR_CTP') ? 'the body is not valid JSON' : error.message;
        return reply.code(status).type('application/json').send({ message });
      });
      scope.setNotFoundHandler((request, reply) =>
        reply
          .code(404)
          .type('application/json')
          .send({ message: `Cannot ${request.method} ${request.url.split('?')[0]}` }),
      );
      // Every SSE stream ends before the server closes, or it would wait for phones to hang up,
      // and every socket that carried one is dropped: it is never reused for a request.
      const streams = new Set<Socket>();
      scope.addHook('preClose', async () => {
        hub.closeAll();
        for (const s of streams) s.destroy();
      });

      /** The device whose token the request carries (marked seen), or null. */
      const deviceOf = (request: FastifyRequest): Promise<DeviceRecord | null> => service.authenticate(readCredentials(request.headers.authorization));
      const unauthorized = (reply: FastifyReply) => reply.code(401).type('application/json').send({ message: 'Unauthorized' });

      scope.post('/device', hidden, async (request, reply) =>
        send(reply, await service.register(readCredentials(request.headers.authorization), request.body, request.headers['user-agent'])),
      );
      scope.get('/device', hidden, async (request, reply) => send(reply, service.getDevice(await deviceOf(request), request.ip)));
      scope.patch('/device', hidden, async (request, reply) => {
        const device = await deviceOf(request);
        if (!device) return unauthorized(reply);
        return send(reply, await service.patchDevice(device, request.body, request.headers['user-agent']));
      });
      for (const path of ['/message', '/messages']) {
        scope.get<{ Querystring: { order?: string } }>(path, hidden, async (request, reply) => {
          const device = await deviceOf(request);
          if (!device) return unauthorized(reply);
          return send(reply, await service.pull(device, request.query.order));
        });
        scope.patch(path, hidden, async (request, reply) => {
          const device = await deviceOf(request);
          if (!device) return unauthorized(reply);
          return send(reply, await service.report(device, request.body));
        });
      }
      // The device's signing key and ping interval, and its own webhook endpoints
      // (docs/phone-gateway.md "Phone-side webhooks"): the app imports both over its own.
      scope.get('/settings', hidden, async (request, reply) => {
        const device = await deviceOf(request);
        return device ? reply.send(await gateway.webhooks.settingsFor(device)) : unauthorized(reply);
      });
      scope.get('/webhooks', hidden, async (request, reply) => {
        const device = await deviceOf(request);
        return device ? reply.send(await gateway.webhooks.webhooksFor(device, origin ?? `${request.protocol}://${request.host}`)) : unauthorized(reply);
      });
      // The endpoints themselves: the signature is over the raw body, so this scope keeps it as bytes.
      await scope.register(async (hooks) => {
        hooks.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));
        hooks.post<{ Params: { deviceId: string; token: string } }>('/webhooks/:deviceId/:token', hidden, async (request, reply) => {
          const header = (name: string) => {
            const v = request.headers[name];
            return typeof v === 'string' ? v : undefined;
          };
          const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          return send(
            reply,
            await gateway.webhooks.receive(
              request.params.deviceId,
              request.params.token,
              { timestamp: header('x-timestamp'), signature: header('x-signature') },
              raw,
            ),
          );
        });
      });
      scope.get('/user/code', hidden, async (request, reply) => send(reply, await service.userCode(readCredentials(request.headers.authorization))));
      scope.patch('/user/password', hidden, async (request, reply) => {
        const device = await deviceOf(request);
        if (!device) return unauthorized(reply);
        return send(reply, await service.changePassword(device, request.body));
      });

      scope.get('/events', hidden, async (request, reply) => {
        const device = await deviceOf(request);
        if (!device) return unauthorized(reply);
        // The stream is ours from here: headers now (the app counts the open as a reason to pull),
        // then events and keep-alives as they come, until the phone or Herald closes it.
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
          // nginx: do not buffer the stream (docs/phone-gateway.md lists the proxy settings).
          'x-accel-buffering': 'no',
        });
        raw.flushHeaders();
        // Ending a stream (shutdown) also drops its socket: a phone reconnects, an idle keep-alive
        // socket would only hold the server's close up.
        const socket = request.raw.socket;
        streams.add(socket);
        socket.once('close', () => streams.delete(socket));
        socket.setKeepAlive(true);
        const detach = hub.attach(device.id, { write: (chunk) => raw.write(chunk), end: () => raw.end(() => socket.destroy()) });
        raw.on('close', detach);
        // Each connection asks the phone to fetch its settings and webhooks again: a phone that
        // registered before Herald listed them, or lost them, gets them without a 24 h wait.
        hub.publish(device.id, { type: 'SettingsUpdated' });
        hub.publish(device.id, { type: 'WebhooksUpdated' });
      });
    },
    { prefix: gateway.basePath },
  );
}
