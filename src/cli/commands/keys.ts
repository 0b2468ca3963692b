/**
 * `herald keys list|create|revoke|rotate`: a tenant's API keys (docs/tenants.md). A key is
 * printed once; Herald stores only its SHA-256. Revoking takes effect on the next request of
 * every process. Each change is on the tenant's audit trail (actor `cli`).
 * `herald keys content-key`: prints a new content key (32 bytes, base64) for `encryption:`.
 * `herald keys rotate-content`: re-seals stored content with the primary content key.
 */
import { mkdirSync } from 'node:fs';
import { systemClock } from '../../clock.js';
import { openStore } from '../../runtime/node.js';
import { newContentKey, rotateContent } from '../../runtime/content-keys.js';
import { API_KEY_SCOPES, type ApiKeyInfo, type ApiKeyScope, type Store } from '../../store/store.js';
import { TenantsAndKeys } from '../../tenants/tenants-and-keys.js';
import { CONFIG_FLAGS, parseFlags, refusalsAsUsage, UsageError } from '../args.js';
import { DEFAULT_TENANT } from '../bootstrap-key.js';
import { loadConfig } from '../load-config.js';
import { recordCliAction } from '../operator-record.js';

export const KEYS_HELP = `Usage: herald keys list   [--tenant ID] [--config herald.json] [--data-dir ./herald-data]
       herald keys create [--tenant ID] [--label NAME] [--scope SCOPES] [--expires DATE-TIME]
       herald keys revoke --id KEY_ID [--tenant ID]
       herald keys rotate --id KEY_ID [--tenant ID]
       herald keys content-key
       herald keys rotate-content [--config herald.json] [--data-dir ./herald-data]

list: the tenant's keys (id, label, scopes, created, expires, last used, revoked).
create: makes an API key and prints it once. Herald keeps only a SHA-256 hash of it: a lost key
  cannot be shown again; create another. --scope takes comma-separated scopes out of
  ${API_KEY_SCOPES.join(', ')} (default: all of them for the default tenant, all but tenants for another).
revoke: the key is refused on every process within a second.
rotate: prints a new key with the same label, scopes and expiry; the old one is revoked at once.
--tenant defaults to the default tenant.
content-key: prints a new 32-byte content key (base64) for encryption.key_env / key_file.
rotate-content: re-seals every stored message content (and audience rows' template data) with the primary content key, so the
keys listed in encryption.previous_keys can then be removed (docs/retention.md).
`;

/** The scopes of --scope (comma-separated), or null when absent. */
export function parseScopeFlag(value: string | undefined): ApiKeyScope[] | null {
  if (value === undefined) return null;
  const words = value
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');
  const unknown = words.filter((w) => !(API_KEY_SCOPES as readonly string[]).includes(w));
  if (words.length === 0 || unknown.length > 0) throw new UsageError(`--scope takes comma-separated scopes out of ${API_KEY_SCOPES.join(', ')}; got ${value}`);
  return API_KEY_SCOPES.filter((s) => words.includes(s));
}

function expiryFlag(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const t = Date.parse(value);
  if (!Number.isFinite(t) || t <= now) throw new UsageError(`--expires must be a date-time in the future, got ${value}`);
  return t;
}

const iso = (t: number | null) => (t === null ? '-' : new Date(t).toISOString());

function keyLine(k: ApiKeyInfo): string {
  return [
    k.id,
    JSON.stringify(k.label),
    k.scopes.join(','),
    iso(k.createdAt),
    `expires=${iso(k.expiresAt)}`,
    `last_used=${iso(k.lastUsedAt)}`,
    k.revokedAt === null ? 'live' : `revoked=${iso(k.revokedAt)}`,
  ].join('  ');
}

export async function keysCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(KEYS_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'content-key') {
    process.stdout.write(`${newContentKey()}\n`);
    return 0;
  }
  if (!['create', 'list', 'revoke', 'rotate', 'rotate-content'].includes(sub)) throw new UsageError(`unknown keys command "${sub}"; try: herald keys --help`);
  const flags = parseFlags(rest, {
    label: { type: 'string' },
    tenant: { type: 'string', short: 't' },
    scope: { type: 'string' },
    expires: { type: 'string' },
    id: { type: 'string' },
    ...CONFIG_FLAGS,
  });
  if (flags.help) {
    process.stdout.write(KEYS_HELP);
    return 0;
  }
  const now = systemClock.now();
  const scopes = parseScopeFlag(flags.scope);
  const expiresAt = expiryFlag(flags.expires, now);
  if ((sub === 'revoke' || sub === 'rotate') && flags.id === undefined) throw new UsageError(`herald keys ${sub} needs --id KEY_ID (see herald keys list)`);
  const config = loadConfig(flags.config, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {});
  mkdirSync(config.data_dir, { recursive: true });
  const store = await openStore(config);
  try {
    if (sub === 'rotate-content') {
      const r = await rotateContent(store);
      process.stdout.write(`re-sealed ${r.resealed} of ${r.scanned} stored contents with the primary content key\n`);
      return 0;
    }
    const tenantId = flags.tenant ?? DEFAULT_TENANT.id;
    if (tenantId === DEFAULT_TENANT.id) await store.ensureTenant(DEFAULT_TENANT, now);
    else if (!(await store.tenants.getTenant(tenantId))) throw new UsageError(`no tenant ${tenantId}; see herald tenants list`);
    return await run(store, sub, tenantId, { label: flags.label ?? 'cli', scopes, expiresAt, id: flags.id ?? '' }, now);
  } finally {
    await store.close();
  }
}

async function run(
  store: Store,
  sub: string,
  tenantId: string,
  f: { label: string; scopes: ApiKeyScope[] | null; expiresAt: number | null; id: string },
  now: number,
): Promise<number> {
  if (sub === 'list') {
    for (const k of await store.tenants.listKeys(tenantId)) process.stdout.write(`${keyLine(k)}\n`);
    return 0;
  }
  const keys = new TenantsAndKeys(store);
  if (sub === 'create') {
    const { id, key, scopes } = await keys.createKey(
      tenantId,
      { label: f.label, scopes: f.scopes ?? keys.defaultScopes(tenantId), expiresAt: f.expiresAt },
      now,
    );
    await recordCliAction(store, tenantId, now, 'key_create', id, { label: f.label, scopes });
    process.stdout.write(`${key}\n`);
    process.stderr.write(`Key ${id} (${scopes.join(', ')}). This key is shown once. Herald stores only its hash.\n`);
    return 0;
  }
  if (sub === 'revoke') {
    const k = await refusalsAsUsage(keys.revokeKey(tenantId, f.id, now), `tenant ${tenantId} has no key ${f.id}`);
    await recordCliAction(store, tenantId, now, 'key_revoke', k.id, { label: k.label });
    process.stdout.write(`${keyLine(k)}\n`);
    return 0;
  }
  const { info: k, key } = await refusalsAsUsage(keys.rotateKey(tenantId, f.id, now), `tenant ${tenantId} has no live key ${f.id}`);
  await recordCliAction(store, tenantId, now, 'key_rotate', f.id, { replaced_by: k.id });
  process.stdout.write(`${key}\n`);
  process.stderr.write(`Key ${k.id} replaces ${f.id} (revoked). This key is shown once.\n`);
  return 0;
}
