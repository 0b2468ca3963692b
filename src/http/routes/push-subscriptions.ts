/**
 * A recipient's push subscriptions: PUT /v1/recipients/:id/push-subscriptions/:subscriptionId
 * registers (or updates, or revives) one device's registration with FCM, APNs or a Web Push
 * service; DELETE removes it; GET lists them with why any was deactivated. A push notification
 * to a recipient without `push_token` goes to every active subscription, one delivery each.
 * Tokens and endpoints are destinations: answers show only their last characters.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { encodePushTarget, parsePushTarget, pushTargetError, PUSH_TARGET_TYPES, type PushTarget } from '../../domain/index.js';
import { fieldError, HeraldError } from '../../errors.js';
import type { PushSubscriptionView } from '../../store/push-store.js';
import type { Store } from '../../store/store.js';

const problemRef = { $ref: 'problem#' };
const ID = { type: 'string', minLength: 1, maxLength: 200 } as const;
const SUBSCRIPTION_ID = { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' } as const;

const targetBody = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { type: 'string', enum: [...PUSH_TARGET_TYPES] },
    token: { type: 'string', minLength: 1, maxLength: 4096, description: 'fcm: the registration token; apns: the device token (hex)' },
    environment: { type: 'string', enum: ['production', 'sandbox'], description: 'apns: the app build’s APNs environment' },
    endpoint: { type: 'string', minLength: 1, maxLength: 2048, description: 'webpush: the subscription’s endpoint (https)' },
    keys: {
      type: 'object',
      additionalProperties: false,
      required: ['p256dh', 'auth'],
      properties: { p256dh: { type: 'string' }, auth: { type: 'string' } },
      description: 'webpush: PushSubscription.toJSON().keys',
    },
  },
} as const;

const subscriptionJsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    target_hint: { type: 'string', description: 'The last characters of the token or endpoint, to tell devices apart' },
    active: { type: 'boolean' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    deactivated_at: { type: ['string', 'null'], format: 'date-time' },
    deactivated_reason: { type: ['string', 'null'], enum: ['removed', 'unregistered', 'bad_token', null] },
    deactivated_code: { type: ['string', 'null'] },
  },
} as const;

interface TargetBody {
  type: PushTarget['type'];
  token?: string;
  environment?: 'production' | 'sandbox';
  endpoint?: string;
  keys?: { p256dh: string; auth: string };
}

/** The body as a target, or a field error naming what is wrong (fields of another type are refused, not ignored). */
function targetOf(b: TargetBody): PushTarget {
  const allowed: Record<PushTarget['type'], string[]> = { fcm: ['token'], apns: ['token', 'environment'], webpush: ['endpoint', 'keys'] };
  for (const field of ['token', 'environment', 'endpoint', 'keys'] as const) {
    if (b[field] !== undefined && !allowed[b.type].includes(field)) throw fieldError(field, `does not apply to a ${b.type} subscription`);
  }
  const candidate =
    b.type === 'fcm'
      ? { type: 'fcm', token: b.token }
      : b.type === 'apns'
        ? { type: 'apns', token: b.token, environment: b.environment ?? 'production' }
        : { type: 'webpush', endpoint: b.endpoint, keys: b.keys };
  const error = pushTargetError(candidate);
  if (error) throw fieldError(error.split(' ')[0]!, error.slice(error.indexOf(' ') + 1));
  return candidate as PushTarget;
}

/** The last few characters of what a subscription sends to: enough to tell devices apart, not to reach one. */
function targetHint(target: string): string {
  const t = parsePushTarget(target);
  const s = t === null ? '' : t.type === 'webpush' ? t.endpoint : t.token;
  return `…${s.slice(-6)}`;
}

/** A subscription as the API shows it. */
export function pushSubscriptionJson(s: PushSubscriptionView) {
  return {
    id: s.id,
    type: s.type,
    target_hint: targetHint(s.target),
    active: s.deactivatedAt === null,
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.updatedAt).toISOString(),
    deactivated_at: s.deactivatedAt === null ? null : new Date(s.deactivatedAt).toISOString(),
    deactivated_reason: s.deactivatedReason,
    deactivated_code: s.deactivatedCode,
  };
}

/** Registers the push subscription routes on an authenticated scope. */
export function pushSubscriptionRoutes(app: FastifyInstance, deps: { store: Store; clock: Clock }): void {
  const clock = deps.clock;
  const params = {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'subscriptionId'],
    properties: { id: ID, subscriptionId: SUBSCRIPTION_ID },
  } as const;

  app.put<{ Params: { id: string; subscriptionId: string }; Body: TargetBody }>(
    '/v1/recipients/:id/push-subscriptions/:subscriptionId',
    {
      schema: {
        summary: 'Register or update one device of a recipient (FCM token, APNs token, Web Push subscription)',
        description: 'Idempotent: the same body again changes nothing but updated_at. A deactivated subscription registered again is active again.',
        tags: ['push subscriptions'],
        params,
        body: targetBody,
        response: { 200: subscriptionJsonSchema, 400: problemRef, 401: problemRef },
      },
    },
    async (request) => {
      const target = targetOf(request.body);
      const saved = await deps.store.push.putPushSubscription({
        tenantId: request.tenantId,
        recipientId: request.params.id,
        id: request.params.subscriptionId,
        type: target.type,
        target: encodePushTarget(target),
        now: clock.now(),
      });
      return pushSubscriptionJson(saved);
    },
  );

  app.delete<{ Params: { id: string; subscriptionId: string } }>(
    '/v1/recipients/:id/push-subscriptions/:subscriptionId',
    {
      schema: {
        summary: 'Remove one device of a recipient: nothing more is sent to it',
        tags: ['push subscriptions'],
        params,
        response: { 401: problemRef, 404: problemRef },
      },
    },
    async (request, reply) => {
      const removed = await deps.store.push.removePushSubscription({
        tenantId: request.tenantId,
        recipientId: request.params.id,
        id: request.params.subscriptionId,
        now: clock.now(),
      });
      if (!removed) throw new HeraldError('not_found', `recipient ${request.params.id} has no push subscription ${request.params.subscriptionId}`);
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/recipients/:id/push-subscriptions',
    {
      schema: {
        summary: "A recipient's push subscriptions, active and deactivated",
        tags: ['push subscriptions'],
        params: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: ID } },
        response: { 200: { type: 'object', properties: { items: { type: 'array', items: subscriptionJsonSchema } } }, 401: problemRef },
      },
    },
    async (request) => ({ items: (await deps.store.push.listPushSubscriptions(request.tenantId, request.params.id)).map(pushSubscriptionJson) }),
  );
}
