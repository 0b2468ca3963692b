/**
 * POST /v1/notifications/batch: up to 1,000 notifications per request, each answered on its own
 * (intake/batch-intake.ts). The request is valid when it is `{"items": [...]}` with 1 to 1,000
 * objects; each item is then validated here against POST /v1/notifications' own schema (plus
 * `idempotency_key`), so an invalid item is that item's 400 and never the batch's.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyError, FastifyInstance } from 'fastify';
import { HeraldError, toProblem } from '../../errors.js';
import { BATCH_INSTANCE, type BatchItem, type BatchItemAnswer } from '../../intake/batch-intake.js';
import type { IntakeService } from '../../intake/intake-service.js';
import { notificationRequestSchema, type NotificationRequest } from '../../intake/notification-request.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../idempotency-header.js';
import { sendProblem, validationFailure } from '../problem-handler.js';

/** Items per batch: one transaction of ~1,000 notifications commits in tens of milliseconds, and a client retry resends at most that. */
export const MAX_BATCH_ITEMS = 1000;
/** 16 MiB: 1,000 items of ~16 KiB each (a text message is well under 1 KiB; a large HTML e-mail belongs in a smaller batch). */
export const BATCH_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/** One item: a POST /v1/notifications body, plus the item's own idempotency key (the Idempotency-Key header's rules and namespace). */
export const batchItemSchema = {
  ...notificationRequestSchema,
  properties: {
    ...notificationRequestSchema.properties,
    idempotency_key: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        'Makes this item safe to send again: the same key and body replay its first answer (200), another body is 422. Printable ASCII, 1-255 characters.',
    },
  },
} as const;

/** What the route's validator checks: the envelope only (items are checked one by one). */
const envelopeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: { items: { type: 'array', minItems: 1, items: { type: 'object' } } },
} as const;

// The app's validator options (app.ts: strict bodies, no coercion, no defaults), and RFC 3339
// date-times as the app's ajv-formats checks them (a full date, a time and an offset).
const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false, strict: false });
const RFC3339 = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
ajv.addFormat('date-time', { type: 'string', validate: (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)) });
const validateEnvelope: ValidateFunction = ajv.compile(envelopeSchema);
const validateItem: ValidateFunction = ajv.compile(batchItemSchema);

const problemRef = { $ref: 'problem#' };
const resultSchema = {
  type: 'object',
  required: ['index', 'status', 'notification', 'problem', 'replayed'],
  properties: {
    index: { type: 'integer', description: "The item's position in `items`, from 0." },
    status: { type: 'integer', description: '202 accepted now; 200 its idempotency_key replayed an earlier acceptance; 4xx refused (see `problem`).' },
    notification: {
      anyOf: [{ type: 'object', additionalProperties: true }, { type: 'null' }],
      description: 'What POST /v1/notifications answers with 202: id, purpose, times and deliveries.',
    },
    problem: { anyOf: [problemRef, { type: 'null' }] },
    replayed: { type: 'boolean', description: "The answer is the item's idempotency_key's stored one." },
  },
} as const;

/** Registers POST /v1/notifications/batch on an authenticated scope. */
export function notificationBatchRoute(app: FastifyInstance, deps: { intake: IntakeService }): void {
  app.post<{ Body: { items: Array<Record<string, unknown>> } }>(
    '/v1/notifications/batch',
    {
      bodyLimit: BATCH_BODY_LIMIT_BYTES,
      // The documented schema is the full item; the route validates the envelope, each item on its own.
      validatorCompiler: ({ httpPart }) => (httpPart === 'body' ? validateEnvelope : () => true),
      // A body over the limit is this route's batch_too_large, not the app's 256 KiB payload_too_large.
      errorHandler: (err: FastifyError, request, reply) => {
        if (err.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw err;
        void sendProblem(
          reply,
          request,
          new HeraldError('batch_too_large', 'the batch is larger than 16 MiB; send at most 1,000 items per batch', [], { cause: err }),
        );
      },
      schema: {
        summary: 'Accept up to 1,000 notifications, each answered on its own',
        description:
          'Each item is a POST /v1/notifications body with an optional `idempotency_key`, checked and answered exactly as that endpoint would, in order: ' +
          '`results[i]` answers `items[i]`. The items that pass are committed together in one transaction before the answer (either all of them are stored or none), and workers are woken once. ' +
          'An invalid item never stops the others. The answer is 200 whenever the batch itself is well formed, whatever its items got: read each `status`. ' +
          'More than 1,000 items, or more than 16 MiB, is 413 `batch_too_large`. Items repeating a key are taken in turn: the later one replays the first (200) or is 422.',
        tags: ['notifications'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['items'],
          properties: { items: { type: 'array', minItems: 1, maxItems: MAX_BATCH_ITEMS, items: batchItemSchema } },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              results: { type: 'array', items: resultSchema },
              accepted: { type: 'integer', description: 'Items answered 202.' },
              replayed: { type: 'integer', description: 'Items answered from their idempotency_key.' },
              refused: { type: 'integer', description: 'Items answered with a problem (not replayed).' },
            },
          },
          400: problemRef,
          401: problemRef,
          413: problemRef,
          415: problemRef,
        },
      },
    },
    async (request) => {
      if (request.headers['idempotency-key'] !== undefined) {
        throw new HeraldError('validation_failed', 'Idempotency-Key is not used on a batch: give each item its idempotency_key', [
          { field: 'Idempotency-Key', message: 'is not used on a batch: give each item its idempotency_key' },
        ]);
      }
      const { items } = request.body;
      if (items.length > MAX_BATCH_ITEMS) {
        throw new HeraldError('batch_too_large', `the batch has ${items.length} items; send at most ${MAX_BATCH_ITEMS} per batch`, [
          { field: 'items', message: `must have at most ${MAX_BATCH_ITEMS} items` },
        ]);
      }
      const answers = new Array<BatchItemAnswer>(items.length);
      const valid: Array<{ index: number; item: BatchItem }> = [];
      items.forEach((raw, index) => {
        if (!validateItem(raw)) {
          const err = validationFailure(validateItem.errors as ErrorObject[]);
          answers[index] = { status: err.status, notification: null, problem: toProblem(err, BATCH_INSTANCE), replayed: false };
          return;
        }
        const { idempotency_key: key, ...body } = raw as Record<string, unknown> & { idempotency_key?: string };
        valid.push({ index, item: { body: body as unknown as NotificationRequest, idempotencyKey: key ?? null } });
      });
      const accepted = await deps.intake.submitBatch(
        request.tenantId,
        valid.map((v) => v.item),
      );
      valid.forEach((v, i) => (answers[v.index] = accepted[i]!));
      const results = answers.map((a, index) => ({ index, ...a }));
      return {
        results,
        accepted: results.filter((r) => r.status === 202).length,
        replayed: results.filter((r) => r.replayed).length,
        refused: results.filter((r) => r.problem !== null && !r.replayed).length,
      };
    },
  );
}
