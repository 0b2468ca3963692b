/**
 * SMSGate's third-party API under `/3rdparty/v1`, so integrations written for SMSGate (the
 * official `android-sms-gateway` client among them) switch to Herald by changing a URL:
 * `POST /message` sends, `GET /message/:id` reads its state back, `GET /devices` lists the
 * phones, `GET /health` answers. HTTP Basic credentials map to a Herald API key: any login,
 * any valid key as the password (whatever its shape, as with a Bearer token on /v1), with the
 * route's scope; `/health` too, since the official client sends its credentials there. Each phone number becomes one Herald notification (purpose
 * `transactional`, or `otp` with `priority` ≥ 100, the app's expedited level) through the
 * tenant's Android gateway account, so it gets Herald's whole state machine: a message is
 * offered to a phone, never sent twice, and retried on its ladder. `simNumber` and
 * `withDeliveryReport` reach the phone's offer as the reference server passes them (the SIM
 * within Herald's per-SIM pacing). Errors answer as SMSGate's
 * server does, `{ "message": "..." }`, never with a destination in them.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { HeraldError } from '../../errors.js';
import type { IntakeService } from '../../intake/intake-service.js';
import { recipientAddressError } from '../../intake/notification-request.js';
import type { ProviderAccountConfig } from '../../providers/provider.js';
import type { DeliveryView, NotificationView, Store } from '../../store/store.js';
import { bearerKey, checkScope } from '../auth.js';
import type { LiveKeys } from '../live-keys.js';

/** Where the compatible API lives; SMSGate's cloud serves it at https://api.sms-gate.app/3rdparty/v1. */
export const THIRD_PARTY_PREFIX = '/3rdparty/v1';
const MAX_NUMBERS = 100;
const DEFAULT_TTL_S = 24 * 3600;

interface SendBody {
  id?: string | null;
  message?: string | null;
  textMessage?: { text: string } | null;
  phoneNumbers: string[];
  simNumber?: number | null;
  ttl?: number | null;
  validUntil?: string | null;
  withDeliveryReport?: boolean | null;
  priority?: number | null;
  deviceId?: string | null;
  isEncrypted?: boolean | null;
}

const sendSchema = {
  type: 'object',
  required: ['phoneNumbers'],
  properties: {
    id: { type: ['string', 'null'], pattern: '^[A-Za-z0-9_-]{1,36}$' },
    message: { type: ['string', 'null'], minLength: 1, maxLength: 65536 },
    textMessage: { type: ['object', 'null'], required: ['text'], properties: { text: { type: 'string', minLength: 1, maxLength: 65536 } } },
    phoneNumbers: { type: 'array', minItems: 1, maxItems: MAX_NUMBERS, items: { type: 'string', minLength: 2, maxLength: 20 } },
    simNumber: { type: ['integer', 'null'], minimum: 1, maximum: 3 },
    ttl: { type: ['integer', 'null'], minimum: 5 },
    validUntil: { type: ['string', 'null'], format: 'date-time' },
    withDeliveryReport: { type: ['boolean', 'null'] },
    priority: { type: ['integer', 'null'], minimum: -128, maximum: 127 },
    deviceId: { type: ['string', 'null'], maxLength: 64 },
    isEncrypted: { type: ['boolean', 'null'] },
  },
} as const;

/** The phone's state names, as SMSGate reports them. */
type ProcessState = 'Pending' | 'Processed' | 'Sent' | 'Delivered' | 'Failed';

/** One recipient's state, from its Herald delivery: evidence first, then the delivery's own state. */
function recipientState(d: DeliveryView | undefined): { state: ProcessState; error?: string } {
  if (!d) return { state: 'Pending' };
  if (d.downstreamStatus === 'delivered' || d.downstreamStatus === 'read') return { state: 'Delivered' };
  if (d.downstreamStatus === 'failed' || d.downstreamStatus === 'bounced') return { state: 'Failed', error: d.lastErrorCode ?? 'failed' };
  if (d.downstreamStatus === 'sent') return { state: 'Sent' };
  if (d.state === 'terminal') return { state: 'Failed', error: d.terminalReason ?? 'failed' };
  if (d.state === 'accepted') return { state: 'Processed' };
  return { state: 'Pending' };
}

// The reference server's words for a known message id (modules/messages ErrMessageAlreadyExists).
const DUPLICATE_ID = 'duplicate id';

/** SMSGate's roll-up of recipients' states into the message's. */
function rollUp(states: ProcessState[]): ProcessState {
  if (states.includes('Pending')) return 'Pending';
  if (states.includes('Processed')) return 'Processed';
  if (states.every((s) => s === 'Delivered')) return 'Delivered';
  if (states.every((s) => s === 'Failed')) return 'Failed';
  return 'Sent';
}

/** The notification id of recipient `i` of a message: per tenant, so two tenants' message ids never collide. */
function notificationIdOf(tenantId: string, messageId: string, i: number): string {
  const h = createHash('sha256').update(`${tenantId.length}:${tenantId};${messageId}`).digest('hex').slice(0, 24);
  return `sgm_${h}_${i}`;
}

function fail(reply: FastifyReply, status: number, message: string) {
  return reply.code(status).type('application/json').send({ message });
}

export interface ThirdPartyDeps {
  store: Store;
  intake: IntakeService;
  accounts?: readonly ProviderAccountConfig[];
  clock: Clock;
  liveKeys: LiveKeys;
}

/** Registers the SMSGate-compatible API in its own scope, behind Basic credentials that carry a Herald API key. */
export async function smsgateThirdPartyRoutes(app: FastifyInstance, deps: ThirdPartyDeps): Promise<void> {
  const clock = deps.clock;
  const gateway = (deps.accounts ?? []).find((a) => a.kind === 'android_gateway' && a.channel === 'sms');

  await app.register(
    async (scope) => {
      scope.decorateRequest('thirdPartyTenant', '');
      scope.addHook('onRequest', async (request: FastifyRequest, reply) => {
        const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(request.headers.authorization ?? '');
        const decoded = m ? Buffer.from(m[1]!, 'base64').toString('utf8') : '';
        const password = decoded.slice(decoded.indexOf(':') + 1);
        // Any key a Bearer header may carry (bearerKey's characters and length), looked up by its hash.
        const key = m && decoded.includes(':') ? bearerKey(`Bearer ${password}`) : null;
        const found = key !== null ? await deps.liveKeys.find(key, clock.now()) : null;
        if (!found) {
          void reply.header('www-authenticate', 'Basic realm="herald"');
          return fail(reply, 401, 'Unauthorized: use HTTP Basic with any login and a Herald API key as the password');
        }
        checkScope(request, found.scopes);
        (request as FastifyRequest & { thirdPartyTenant: string }).thirdPartyTenant = found.tenantId;
      });
      const tenantOf = (r: FastifyRequest) => (r as FastifyRequest & { thirdPartyTenant: string }).thirdPartyTenant;
      // Plain JSON errors, as the SMSGate server answers, for what the schema refuses.
      scope.setErrorHandler((err: { validation?: unknown; statusCode?: number; message: string }, _request, reply) => {
        if (err.validation) return fail(reply, 400, `Invalid request: ${err.message}`);
        if (err instanceof HeraldError) return fail(reply, err.status, err.detail);
        return fail(
          reply,
          err.statusCode && err.statusCode < 500 ? err.statusCode : 500,
          err.statusCode && err.statusCode < 500 ? err.message : 'Internal error',
        );
      });

      scope.get('/health', async () => ({ status: 'pass', version: 'herald', releaseId: 1, checks: {} }));

      scope.get('/devices', async (request) => {
        const devices = await deps.store.devices.listDevices({ tenantId: tenantOf(request) });
        return devices.map((d) => ({
          id: d.id,
          name: d.name,
          createdAt: new Date(d.createdAt).toISOString(),
          updatedAt: new Date(d.lastSeenAt).toISOString(),
          lastSeen: new Date(d.lastSeenAt).toISOString(),
          deletedAt: null,
        }));
      });

      /**
       * True when recipient `i` stored under a message id is recipient `i` of this message: the
       * same text, phone number, pinned device and number of recipients. Compared with what is
       * stored (the content is sealed at rest), so no digest of a body is kept anywhere.
       */
      const sameRecipient = async (n: NotificationView, body: SendBody, text: string, i: number): Promise<boolean> => {
        if (n.content.text !== text || n.metadata?.smsgate_recipients !== body.phoneNumbers.length) return false;
        if ((n.metadata?.herald_device_id ?? null) !== (body.deviceId ?? null)) return false;
        const source = await deps.store.review.getNotificationSource(n.tenantId, n.id);
        return source?.recipient.phone === body.phoneNumbers[i];
      };

      const send = async (request: FastifyRequest<{ Body: SendBody }>, reply: FastifyReply) => {
        if (!gateway) return fail(reply, 400, 'Herald has no android_gateway provider account to send through');
        const body = request.body;
        const text = body.textMessage?.text ?? body.message;
        if (!text) return fail(reply, 400, 'Invalid request: message or textMessage.text is required');
        if (body.isEncrypted) return fail(reply, 400, 'Invalid request: end-to-end encrypted messages are not supported by Herald');
        const tenantId = tenantOf(request);
        const now = clock.now();
        const messageId = body.id ?? `sg${now.toString(36)}${Math.random().toString(36).slice(2, 10)}`;
        // A validUntil already past would reach the phone as "TTL expired" (the app's words, at
        // send time); refused here, before anything is stored or offered.
        const validFor = body.validUntil ? Math.floor((Date.parse(body.validUntil) - now) / 1000) : null;
        if (validFor !== null && validFor < 1) return fail(reply, 400, 'Invalid request: validUntil is in the past (TTL expired)');
        const ttlSeconds = validFor ?? body.ttl ?? DEFAULT_TTL_S;
        const urgent = (body.priority ?? 0) >= 100;
        // Every number is checked before any is accepted: a bad one refuses the whole message, nothing half-written.
        const badAt = body.phoneNumbers.findIndex((phone) => recipientAddressError({ id: 'x', phone }) !== null);
        if (badAt >= 0) return fail(reply, 400, `Invalid request: phoneNumbers[${badAt}] must be a valid phone number in E.164 form`);
        // The same message id again is the same message only with the same content: its stored
        // recipients are answered, not sent again. Other content under a known id is refused as
        // the reference server refuses it; recipient 0 is checked (or written) first, so a refused
        // request has written nothing. A recipient a concurrent repeat has not written yet is
        // written here under the same id, so whichever request writes it, it is written once.
        const recipients: Array<{ phoneNumber: string; state: ProcessState }> = [];
        for (const [i, phone] of body.phoneNumbers.entries()) {
          const id = notificationIdOf(tenantId, messageId, i);
          const stored = await deps.store.getNotification(tenantId, id);
          if (stored) {
            if (!(await sameRecipient(stored, body, text, i))) return fail(reply, 409, DUPLICATE_ID);
            recipients.push({ phoneNumber: phone, state: 'Pending' });
            continue;
          }
          try {
            await deps.intake.submit(
              tenantId,
              {
                recipient: { id: `smsgate:${createHash('sha256').update(phone).digest('hex').slice(0, 32)}`, phone },
                purpose: urgent ? 'otp' : 'transactional',
                channels: ['sms'],
                content: { text },
                ttl_seconds: Math.min(ttlSeconds, 30 * 24 * 3600),
                provider_accounts: { sms: gateway.id },
                metadata: {
                  smsgate_message_id: messageId,
                  smsgate_recipients: body.phoneNumbers.length,
                  ...(body.deviceId ? { herald_device_id: body.deviceId } : {}),
                  // Passed to the phone's offer as SMSGate's server passes them (the SIM within Herald's SIM pacing).
                  ...(typeof body.simNumber === 'number' ? { herald_sim_number: body.simNumber } : {}),
                  ...(body.withDeliveryReport === false ? { herald_delivery_report: false } : {}),
                },
              },
              null,
              { notificationId: id },
            );
          } catch (error) {
            // A concurrent request with the same id wrote this recipient first (Herald's own
            // words for that differ by driver): the same message if its content is the same,
            // else a duplicate id; never the internal error. Anything else is a real failure.
            const raced = await deps.store.getNotification(tenantId, id);
            if (!raced) throw error;
            if (!(await sameRecipient(raced, body, text, i))) return fail(reply, 409, DUPLICATE_ID);
          }
          recipients.push({ phoneNumber: phone, state: 'Pending' });
        }
        return reply.code(202).send({ id: messageId, state: 'Pending', recipients, isHashed: false, isEncrypted: false });
      };
      scope.post('/message', { schema: { body: sendSchema } }, send);
      scope.post('/messages', { schema: { body: sendSchema } }, send);

      const state = async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
        const tenantId = tenantOf(request);
        const recipients: Array<{ phoneNumber: string; state: ProcessState; error?: string }> = [];
        for (let i = 0; i < MAX_NUMBERS; i++) {
          const n = await deps.store.getNotification(tenantId, notificationIdOf(tenantId, request.params.id, i));
          if (!n) break;
          const src = await deps.store.review.getNotificationSource(tenantId, n.id);
          recipients.push({ phoneNumber: src?.recipient.phone ?? '', ...recipientState(n.deliveries[0]) });
        }
        if (recipients.length === 0) return fail(reply, 404, `message ${request.params.id} not found`);
        return { id: request.params.id, state: rollUp(recipients.map((r) => r.state)), recipients, isHashed: false, isEncrypted: false };
      };
      scope.get('/message/:id', state);
      scope.get('/messages/:id', state);
    },
    { prefix: THIRD_PARTY_PREFIX },
  );
}
