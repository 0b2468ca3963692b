/**
 * The operator's routes (the `tenants` scope, docs/tenants.md): GET/POST /v1/tenants,
 * GET /v1/tenants/:id, and PUT/DELETE /v1/tenants/:id/provider-accounts/:accountId, which give a
 * configured provider account to a tenant or take it away. A new tenant comes with its first
 * key (every scope but `tenants`), shown once. Each change is on the operator's audit trail.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { HeraldError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ProviderAccountConfig } from '../../providers/provider.js';
import { API_KEY_SCOPES, type AccountAssignment, type Store, type TenantRecord } from '../../store/store.js';
import { recordAction } from '../audit-trail.js';
import { generateApiKey, hashApiKey } from '../auth.js';
import { apiKeyJson, apiKeySchema } from './keys.js';

const problemRef = { $ref: 'problem#' };
const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } }, required: ['id'] } as const;
const assignParams = {
  type: 'object',
  properties: { id: { type: 'string', maxLength: 64 }, accountId: { type: 'string', maxLength: 128 } },
  required: ['id', 'accountId'],
} as const;

/** What a tenant's first key may do: everything in the tenant, nothing of the operator's. */
export const TENANT_KEY_SCOPES = API_KEY_SCOPES.filter((s) => s !== 'tenants');

export interface TenantRouteDeps {
  store: Store;
  clock: Clock;
  /** The configured provider accounts (only these can be assigned). */
  accounts?: ProviderAccountConfig[];
}

const tenantSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    provider_accounts: { type: 'array', items: { type: 'string' }, description: 'Accounts assigned to the tenant' },
    assignments: {
      type: 'array',
      description: 'The same accounts with their rate shares',
      items: {
        type: 'object',
        properties: {
          provider_account: { type: 'string' },
          rate_share: {
            type: ['number', 'null'],
            description: "Fraction of the account's rate the limiter lets this tenant use at most; null: none (it competes for the whole rate)",
          },
        },
      },
    },
    key: apiKeySchema,
  },
} as const;

function tenantJson(t: TenantRecord, assignments: AccountAssignment[]) {
  const mine = assignments.filter((a) => a.tenantId === t.id);
  return {
    id: t.id,
    name: t.name,
    created_at: new Date(t.createdAt).toISOString(),
    provider_accounts: mine.map((a) => a.providerAccount),
    assignments: mine.map((a) => ({ provider_account: a.providerAccount, rate_share: a.rateShare })),
  };
}

/** The refusal of a share that would take the account's shares past 1. */
export function sharesExceedError(accountId: string, share: number, otherShares: number): HeraldError {
  const left = Math.max(0, Math.round((1 - otherShares) * 1e9) / 1e9);
  return new HeraldError(
    'rate_shares_exceed_account',
    `the other tenants of ${accountId} hold ${Math.round(otherShares * 1e9) / 1e9} of its rate; a share of ${share} would take the sum past 1 (at most ${left} is left)`,
    [{ field: 'rate_share', message: `at most ${left} of ${accountId}'s rate is not held by other tenants` }],
  );
}

/** Registers the operator's tenant routes on an authenticated scope. */
export function tenantRoutes(app: FastifyInstance, deps: TenantRouteDeps): void {
  const clock = deps.clock;
  const audit = { store: deps.store, clock };
  const mustGet = async (id: string) => {
    const t = await deps.store.tenants.getTenant(id);
    if (!t) throw new HeraldError('not_found', `no tenant ${id}`);
    return t;
  };

  app.get(
    '/v1/tenants',
    { schema: { summary: 'Every tenant, by id (operator)', tags: ['tenants'], response: { 401: problemRef, 403: problemRef } } },
    async () => {
      const assignments = await deps.store.tenants.listAssignments();
      return { items: (await deps.store.tenants.listTenants()).map((t) => tenantJson(t, assignments)) };
    },
  );

  app.post<{ Body: { id: string; name: string; key_label?: string } }>(
    '/v1/tenants',
    {
      schema: {
        summary: 'Create a tenant and its first API key (shown once) (operator)',
        tags: ['tenants'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'name'],
          properties: {
            id: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'Lower-case letters, digits, _ and -' },
            name: { type: 'string', minLength: 1, maxLength: 200 },
            key_label: { type: 'string', minLength: 1, maxLength: 100 },
          },
        },
        response: { 201: tenantSchema, 400: problemRef, 401: problemRef, 403: problemRef, 409: problemRef },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const now = clock.now();
      const key = generateApiKey();
      const keyId = newId('key', now);
      const label = b.key_label ?? 'first key';
      const created = await deps.store.tenants.createTenant(
        { id: b.id, name: b.name },
        { id: keyId, tenantId: b.id, keyHash: hashApiKey(key), label, scopes: TENANT_KEY_SCOPES, now },
        now,
      );
      if (!created) throw new HeraldError('tenant_exists', `a tenant ${b.id} already exists`);
      await recordAction(audit, request, 'tenant_create', { subjectId: b.id }, { name: b.name, first_key: keyId });
      const info = (await deps.store.tenants.getKey(b.id, keyId))!;
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...tenantJson(await mustGet(b.id), []), key: { ...apiKeyJson(info), key } });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/tenants/:id',
    {
      schema: {
        summary: 'One tenant and its provider accounts (operator)',
        tags: ['tenants'],
        params: idParams,
        response: { 401: problemRef, 403: problemRef, 404: problemRef },
      },
    },
    async (request) => tenantJson(await mustGet(request.params.id), await deps.store.tenants.listAssignments()),
  );

  app.put<{ Params: { id: string; accountId: string }; Body: { rate_share?: number | null } | undefined }>(
    '/v1/tenants/:id/provider-accounts/:accountId',
    {
      schema: {
        summary: 'Assign a configured provider account to a tenant, with an optional rate share (operator)',
        description:
          "Once an account is assigned to any tenant, only its tenants send through it; an account assigned to nobody is the default tenant's. " +
          "`rate_share` (0 < s ≤ 1) caps the tenant at that fraction of the account's rate in the limiter; without it (or null) the tenant competes for the whole rate. " +
          'A PUT replaces the share of an existing assignment. The shares on one account sum to at most 1 (else 422 rate_shares_exceed_account, nothing written).',
        tags: ['tenants'],
        params: assignParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { rate_share: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 1 } },
        },
        response: { 200: tenantSchema, 400: problemRef, 401: problemRef, 403: problemRef, 404: problemRef, 422: problemRef },
      },
      // The body is optional (a PUT without one assigns with no share): validate it as {}.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async (request) => {
      const { id, accountId } = request.params;
      const share = request.body?.rate_share ?? null;
      const tenant = await mustGet(id);
      if (!(deps.accounts ?? []).some((a) => a.id === accountId)) throw new HeraldError('not_found', `no provider account ${accountId} is configured`);
      const done = await deps.store.tenants.assignAccount(id, accountId, clock.now(), share);
      if (!done.ok) throw sharesExceedError(accountId, share!, done.otherShares);
      await recordAction(audit, request, 'account_assign', { subjectId: id }, { provider_account: accountId, rate_share: share });
      return tenantJson(tenant, await deps.store.tenants.listAssignments());
    },
  );

  app.delete<{ Params: { id: string; accountId: string } }>(
    '/v1/tenants/:id/provider-accounts/:accountId',
    {
      schema: {
        summary: 'Take a provider account away from a tenant (operator); deliveries already accepted keep their account',
        tags: ['tenants'],
        params: assignParams,
        response: { 200: tenantSchema, 401: problemRef, 403: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const { id, accountId } = request.params;
      const tenant = await mustGet(id);
      if (!(await deps.store.tenants.unassignAccount(id, accountId)))
        throw new HeraldError('not_found', `provider account ${accountId} is not assigned to ${id}`);
      await recordAction(audit, request, 'account_unassign', { subjectId: id }, { provider_account: accountId });
      return tenantJson(tenant, await deps.store.tenants.listAssignments());
    },
  );
}
