/**
 * `herald tenants create|list|assign|unassign` (docs/tenants.md): the operator's tenants and
 * which provider accounts each may send through. `create` prints the tenant's first key once
 * (every scope but `tenants`). Each change is on the default (operator's) tenant's audit trail.
 */
import { mkdirSync } from 'node:fs';
import { systemClock } from '../../clock.js';
import { rateShareError } from '../../domain/index.js';
import { openStore } from '../../runtime/node.js';
import { TENANT_ID_PATTERN, TENANT_KEY_SCOPES, TenantsAndKeys } from '../../tenants/tenants-and-keys.js';
import { CONFIG_FLAGS, parseFlags, refusalsAsUsage, UsageError } from '../args.js';
import { DEFAULT_TENANT } from '../bootstrap-key.js';
import { loadConfig } from '../load-config.js';
import { recordCliAction } from '../operator-record.js';

export const TENANTS_HELP = `Usage: herald tenants list   [--config herald.json] [--data-dir ./herald-data]
       herald tenants create --id ID --name NAME [--label KEY_LABEL]
       herald tenants assign   --id ID --account PROVIDER_ACCOUNT [--rate-share FRACTION]
       herald tenants unassign --id ID --account PROVIDER_ACCOUNT

create: a tenant and its first API key (every scope but tenants), printed once.
assign: lets the tenant send through a configured provider account. Once an account is assigned
  to any tenant only its tenants use it; an account assigned to nobody is the default tenant's.
  --rate-share 0.25 caps the tenant at that fraction (0 < s <= 1) of the account's rate; the
  shares on one account sum to at most 1. Without it the tenant competes for the whole rate (a
  re-assignment without it removes the share).
The same as POST /v1/tenants and PUT/DELETE /v1/tenants/{id}/provider-accounts/{account}.
`;

const TENANT_ID = new RegExp(TENANT_ID_PATTERN);

export async function tenantsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(TENANTS_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (!['create', 'list', 'assign', 'unassign'].includes(sub)) throw new UsageError(`unknown tenants command "${sub}"; try: herald tenants --help`);
  const flags = parseFlags(rest, {
    id: { type: 'string' },
    name: { type: 'string' },
    label: { type: 'string' },
    account: { type: 'string' },
    'rate-share': { type: 'string' },
    ...CONFIG_FLAGS,
  });
  if (flags.help) {
    process.stdout.write(TENANTS_HELP);
    return 0;
  }
  if (sub !== 'list' && (flags.id === undefined || !TENANT_ID.test(flags.id)))
    throw new UsageError('--id must be lower-case letters, digits, _ and - (at most 63)');
  if (sub === 'create' && !flags.name) throw new UsageError('herald tenants create needs --name');
  if ((sub === 'assign' || sub === 'unassign') && !flags.account) throw new UsageError(`herald tenants ${sub} needs --account`);
  if (flags['rate-share'] !== undefined && sub !== 'assign') throw new UsageError('--rate-share is for herald tenants assign');
  let rateShare: number | null = null;
  if (flags['rate-share'] !== undefined) {
    const raw = flags['rate-share'].trim();
    rateShare = raw === '' ? NaN : Number(raw);
    if (rateShareError(rateShare)) throw new UsageError(`--rate-share must be a number above 0 and at most 1; got ${JSON.stringify(flags['rate-share'])}`);
  }
  const config = loadConfig(flags.config, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {});
  mkdirSync(config.data_dir, { recursive: true });
  const store = await openStore(config);
  const now = systemClock.now();
  const tenants = new TenantsAndKeys(store);
  try {
    await store.ensureTenant(DEFAULT_TENANT, now);
    if (sub === 'list') {
      const { tenants: all, assignments } = await tenants.list();
      for (const t of all) {
        const accounts = assignments
          .filter((a) => a.tenantId === t.id)
          .map((a) => (a.rateShare === null ? a.providerAccount : `${a.providerAccount}@${a.rateShare}`));
        process.stdout.write(`${t.id}  ${JSON.stringify(t.name)}  ${new Date(t.createdAt).toISOString()}  accounts=${accounts.join(',') || '-'}\n`);
      }
      return 0;
    }
    const id = flags.id!;
    if (sub === 'create') {
      const { id: keyId, key } = await refusalsAsUsage(tenants.createTenant({ id, name: flags.name!, keyLabel: flags.label ?? 'first key' }, now));
      await recordCliAction(store, DEFAULT_TENANT.id, now, 'tenant_create', id, { name: flags.name, first_key: keyId });
      process.stdout.write(`${key}\n`);
      process.stderr.write(`Tenant ${id} created with key ${keyId} (${TENANT_KEY_SCOPES.join(', ')}). This key is shown once.\n`);
      return 0;
    }
    const account = flags.account!;
    if (sub === 'assign') {
      await refusalsAsUsage(tenants.assignAccount(id, account, rateShare, config.provider_accounts, now));
      await recordCliAction(store, DEFAULT_TENANT.id, now, 'account_assign', id, { provider_account: account, rate_share: rateShare });
      process.stdout.write(`${account} assigned to ${id}${rateShare === null ? '' : ` with a rate share of ${rateShare}`}\n`);
      return 0;
    }
    await refusalsAsUsage(tenants.unassignAccount(id, account));
    await recordCliAction(store, DEFAULT_TENANT.id, now, 'account_unassign', id, { provider_account: account });
    process.stdout.write(`${account} no longer assigned to ${id}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
