/**
 * A tenant's API keys: GET/POST /v1/keys, GET/DELETE /v1/keys/:id, POST /v1/keys/:id/rotate
 * (the `admin` scope). A key is shown once, by create and rotate; Herald keeps its SHA-256. A key
 * is created with scopes the caller has itself, never more. A revoke is refused at once on this
 * process and within a second on every other (live-keys.ts). Each change is on the audit trail.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { HeraldError } from '../../errors.js';
import { API_KEY_SCOPES, type ApiKeyInfo, type ApiKeyScope, type Store } from '../../store/store.js';
import { recordAction } from '../audit-trail.js';
import type { LiveKeys } from '../live-keys.js';
import { TenantsAndKeys } from '../../tenants/tenants-and-keys.js';

const problemRef = { $ref: 'problem#' };
const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } }, required: ['id'] } as const;

export interface KeyRouteDeps {
  store: Store;
  clock: Clock;
  /** This process's live-key cache: a key revoked or rotated here is forgotten at once. */
  liveKeys: LiveKeys;
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

/** A key as the API shows it: never its secret or its hash. */
export function apiKeyJson(k: ApiKeyInfo) {
  return {
    id: k.id,
    label: k.label,
    scopes: k.scopes,
    created_at: iso(k.createdAt),
    expires_at: iso(k.expiresAt),
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
  };
}

/** The JSON schema of a key as shown (create and rotate add `key`). */
export const apiKeySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    label: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string', enum: [...API_KEY_SCOPES] } },
    created_at: { type: 'string', format: 'date-time' },
    expires_at: { type: ['string', 'null'], format: 'date-time' },
    last_used_at: { type: ['string', 'null'], format: 'date-time', description: 'Updated at most once a minute' },
    revoked_at: { type: ['string', 'null'], format: 'date-time' },
    key: { type: 'string', description: 'The key itself: only in the answer that created it' },
    replaces: { type: 'string', description: 'Rotation: the id of the key this one replaced (now revoked)' },
  },
} as const;

/** The scopes the caller may hand out: a key's own; a dashboard admin's, all but the operator's `tenants`. */
export function grantableScopes(request: FastifyRequest): readonly ApiKeyScope[] {
  return request.principal?.scopes ?? API_KEY_SCOPES.filter((s) => s !== 'tenants');
}

/** Throws scope_required when `wanted` asks for a scope the caller does not have. */
export function checkGrantable(request: FastifyRequest, wanted: readonly ApiKeyScope[]): void {
  const mine = grantableScopes(request);
  const extra = wanted.filter((s) => !mine.includes(s));
  if (extra.length > 0)
    throw new HeraldError('scope_required', `a key can only be given scopes its creator has; missing: ${extra.join(', ')}`, [
      { field: 'scopes', message: `not yours to grant: ${extra.join(', ')}` },
    ]);
}

/** An `expires_at` in the future, as epoch ms (null when absent). */
export function parseExpiry(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const t = Date.parse(value);
  if (!Number.isFinite(t) || t <= now)
    throw new HeraldError('validation_failed', 'expires_at must be a date-time in the future', [
      { field: 'expires_at', message: 'must be a future date-time' },
    ]);
  return t;
}

interface CreateBody {
  label: string;
  scopes: ApiKeyScope[];
  expires_at?: string;
}

/** Registers the key routes on an authenticated scope. */
export function keyRoutes(app: FastifyInstance, deps: KeyRouteDeps): void {
  const clock = deps.clock;
  const audit = { store: deps.store, clock };
  const keys = new TenantsAndKeys(deps.store);
  const mustGet = async (tenantId: string, id: string) => {
    const k = await deps.store.tenants.getKey(tenantId, id);
    if (!k) throw new HeraldError('not_found', `no API key ${id}`);
    return k;
  };

  app.get(
    '/v1/keys',
    { schema: { summary: "The tenant's API keys, revoked ones included, oldest first", tags: ['keys'], response: { 401: problemRef, 403: problemRef } } },
    async (request) => ({ items: (await deps.store.tenants.listKeys(request.tenantId)).map(apiKeyJson) }),
  );

  app.post<{ Body: CreateBody }>(
    '/v1/keys',
    {
      schema: {
        summary: 'Create an API key (shown once in the answer)',
        description: 'Scopes must be ones the calling key has itself. Herald keeps only a SHA-256 of the key.',
        tags: ['keys'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['label', 'scopes'],
          properties: {
            label: { type: 'string', minLength: 1, maxLength: 100 },
            scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...API_KEY_SCOPES] } },
            expires_at: { type: 'string', maxLength: 40, description: 'RFC 3339 date-time in the future; absent: never expires' },
          },
        },
        response: { 201: apiKeySchema, 400: problemRef, 401: problemRef, 403: problemRef },
      },
    },
    async (request, reply) => {
      const b = request.body;
      checkGrantable(request, b.scopes);
      const now = clock.now();
      const expiresAt = parseExpiry(b.expires_at, now);
      const { id, key, scopes } = await keys.createKey(request.tenantId, { label: b.label, scopes: b.scopes, expiresAt }, now);
      await recordAction(audit, request, 'key_create', { subjectId: id }, { label: b.label, scopes });
      const info = await mustGet(request.tenantId, id);
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...apiKeyJson(info), key });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/keys/:id',
    {
      schema: {
        summary: 'One API key (never the key itself)',
        tags: ['keys'],
        params: idParams,
        response: { 401: problemRef, 403: problemRef, 404: problemRef },
      },
    },
    async (request) => apiKeyJson(await mustGet(request.tenantId, request.params.id)),
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/keys/:id',
    {
      schema: {
        summary: 'Revoke an API key: refused at once here and within a second on every other process',
        description: 'Revoking twice is not an error; the answer shows when it was revoked. Sessions signed in with the key end too.',
        tags: ['keys'],
        params: idParams,
        response: { 200: apiKeySchema, 401: problemRef, 403: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const k = await keys.revokeKey(request.tenantId, request.params.id, clock.now());
      deps.liveKeys.forget(k.id);
      await recordAction(audit, request, 'key_revoke', { subjectId: k.id }, { label: k.label });
      return apiKeyJson(k);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/keys/:id/rotate',
    {
      schema: {
        summary: 'Rotate an API key: a new key with the same label, scopes and expiry; the old one is revoked at once',
        tags: ['keys'],
        params: idParams,
        response: { 201: apiKeySchema, 401: problemRef, 403: problemRef, 404: problemRef },
      },
    },
    async (request, reply) => {
      const old = await mustGet(request.tenantId, request.params.id);
      checkGrantable(request, old.scopes);
      const { info: k, key } = await keys.rotateKey(request.tenantId, request.params.id, clock.now());
      deps.liveKeys.forget(request.params.id);
      await recordAction(audit, request, 'key_rotate', { subjectId: request.params.id }, { replaced_by: k.id });
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...apiKeyJson(k), key, replaces: request.params.id });
    },
  );
}
