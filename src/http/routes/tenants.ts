/**
 * The operator's routes (the `tenants` scope, docs/tenants.md): GET/POST /v1/tenants,
 * GET /v1/tenants/:id, and PUT/DELETE /v1/tenants/:id/provider-accounts/:accountId, which give a
 * configured provider account to a tenant or take it away. A new tenant comes with its first
 * key (every scope but `tenants`), shown once. Each change is on the operator's audit trail.
 */
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../../clock.js';
import { HeraldError } from '../../errors.js';
import { newId } from '../../intake/ids.js';
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
  clock?: Clock;
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
    key: apiKeySchema,
  },
} as const;

function tenantJson(t: TenantRecord, assignments: AccountAssignment[]) {
  return {
    id: t.id,
    name: t.name,
    created_at: new Date(t.createdAt).toISOString(),
    provider_accounts: assignments.filter((a) => a.tenantId === t.id).map((a) => a.providerAccount),
  };
}

/** Registers the operator's tenant routes on an authenticated scope. */
export function tenantRoutes(app: FastifyInstance, deps: TenantRouteDeps): void {
  const clock = deps.clock ?? systemClock;
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

  app.put<{ Params: { id: string; accountId: string } }>(
    '/v1/tenants/:id/provider-accounts/:accountId',
    {
      schema: {
        summary: 'Assign a configured provider account to a tenant (operator)',
        description: "Once an account is assigned to any tenant, only its tenants send through it; an account assigned to nobody is the default tenant's.",
        tags: ['tenants'],
        params: assignParams,
        response: { 200: tenantSchema, 401: problemRef, 403: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const { id, accountId } = request.params;
      const tenant = await mustGet(id);
      if (!(deps.accounts ?? []).some((a) => a.id === accountId)) throw new HeraldError('not_found', `no provider account ${accountId} is configured`);
      await deps.store.tenants.assignAccount(id, accountId, clock.now());
      await recordAction(audit, request, 'account_assign', { subjectId: id }, { provider_account: accountId });
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
