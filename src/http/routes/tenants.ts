/**
 * The operator's routes (the `tenants` scope, docs/tenants.md): GET/POST /v1/tenants,
 * GET /v1/tenants/:id, and PUT/DELETE /v1/tenants/:id/provider-accounts/:accountId, which give a
 * configured provider account to a tenant or take it away. A new tenant comes with its first
 * key (every scope but `tenants`), shown once. Each change is on the operator's audit trail.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import type { ProviderAccountConfig } from '../../providers/provider.js';
import type { AccountAssignment, Store, TenantRecord } from '../../store/store.js';
import { recordAction } from '../audit-trail.js';
import { TENANT_ID_PATTERN, TenantsAndKeys } from '../../tenants/tenants-and-keys.js';
import { apiKeyJson, apiKeySchema } from './keys.js';

const problemRef = { $ref: 'problem#' };
const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } }, required: ['id'] } as const;
const assignParams = {
  type: 'object',
  properties: { id: { type: 'string', maxLength: 64 }, accountId: { type: 'string', maxLength: 128 } },
  required: ['id', 'accountId'],
} as const;

export interface TenantRouteDeps {
  store: Store;
  clock: Clock;
  /** The configured provider accounts (only these can be assigned). */
  accounts?: ProviderAccountConfig[];
  /** Called after an account was assigned or unassigned through this API: intake forgets the access it read. */
  assignmentsChanged?: () => void;
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

/** Registers the operator's tenant routes on an authenticated scope. */
export function tenantRoutes(app: FastifyInstance, deps: TenantRouteDeps): void {
  const clock = deps.clock;
  const audit = { store: deps.store, clock };
  const tenants = new TenantsAndKeys(deps.store);

  app.get(
    '/v1/tenants',
    { schema: { summary: 'Every tenant, by id (operator)', tags: ['tenants'], response: { 401: problemRef, 403: problemRef } } },
    async () => {
      const { tenants: all, assignments } = await tenants.list();
      return { items: all.map((t) => tenantJson(t, assignments)) };
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
            id: { type: 'string', pattern: TENANT_ID_PATTERN, description: 'Lower-case letters, digits, _ and -' },
            name: { type: 'string', minLength: 1, maxLength: 200 },
            key_label: { type: 'string', minLength: 1, maxLength: 100 },
          },
        },
        response: { 201: tenantSchema, 400: problemRef, 401: problemRef, 403: problemRef, 409: problemRef },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { id: keyId, key } = await tenants.createTenant({ id: b.id, name: b.name, keyLabel: b.key_label ?? 'first key' }, clock.now());
      await recordAction(audit, request, 'tenant_create', { subjectId: b.id }, { name: b.name, first_key: keyId });
      const info = (await deps.store.tenants.getKey(b.id, keyId))!;
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...tenantJson(await tenants.get(b.id), []), key: { ...apiKeyJson(info), key } });
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
    async (request) => tenantJson(await tenants.get(request.params.id), await deps.store.tenants.listAssignments()),
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
      const tenant = await tenants.assignAccount(id, accountId, share, deps.accounts ?? [], clock.now());
      deps.assignmentsChanged?.();
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
      const tenant = await tenants.unassignAccount(id, accountId);
      deps.assignmentsChanged?.();
      await recordAction(audit, request, 'account_unassign', { subjectId: id }, { provider_account: accountId });
      return tenantJson(tenant, await deps.store.tenants.listAssignments());
    },
  );
}
