/**
 * The first API key. With HERALD_BOOTSTRAP_KEY set, that key is registered for the default
 * tenant. Otherwise the first start (no key exists yet) creates one, prints it once and
 * writes it to <data-dir>/bootstrap-key with mode 0600; later starts only say where it is.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateApiKey, hashApiKey } from '../tenants/api-keys.js';
import { newId } from '../ids.js';
import { DEFAULT_TENANT_ID, type Store } from '../store/store.js';

export const DEFAULT_TENANT = { id: DEFAULT_TENANT_ID, name: 'Default tenant' };

export type BootstrapResult = { kind: 'from_env' } | { kind: 'created'; key: string; file: string } | { kind: 'existing'; file: string | null };

/** Registers the bootstrap key if one is due; never logs the key. */
export async function ensureBootstrapKey(store: Store, dataDir: string, now: number): Promise<BootstrapResult> {
  await store.ensureTenant(DEFAULT_TENANT, now);
  const file = join(dataDir, 'bootstrap-key');
  const fromEnv = process.env.HERALD_BOOTSTRAP_KEY;
  if (fromEnv) {
    if (!(await store.findApiKey(hashApiKey(fromEnv)))) {
      await store.createApiKey({ id: newId('key', now), tenantId: DEFAULT_TENANT.id, keyHash: hashApiKey(fromEnv), label: 'HERALD_BOOTSTRAP_KEY', now });
    }
    return { kind: 'from_env' };
  }
  if (await store.hasApiKeys()) return { kind: 'existing', file: existsSync(file) ? file : null };
  const key = generateApiKey();
  // Written before the key is registered: a crash in between leaves a file, never a key nobody can read.
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'w' });
  await store.createApiKey({ id: newId('key', now), tenantId: DEFAULT_TENANT.id, keyHash: hashApiKey(key), label: 'bootstrap', now });
  return { kind: 'created', key, file };
}
