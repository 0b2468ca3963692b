/**
 * `herald keys create`: makes an API key, prints it once, stores only its hash.
 * `herald keys content-key`: prints a new content key (32 bytes, base64) for `encryption:`.
 * `herald keys rotate-content`: re-seals stored content with the primary content key.
 */
import { mkdirSync } from 'node:fs';
import { generateApiKey, hashApiKey } from '../../http/auth.js';
import { newId } from '../../intake/ids.js';
import { openStore } from '../../runtime/node.js';
import { newContentKey, rotateContent } from '../../runtime/content-keys.js';
import { parseFlags, UsageError } from '../args.js';
import { DEFAULT_TENANT } from '../bootstrap-key.js';
import { loadConfig } from '../load-config.js';

export const KEYS_HELP = `Usage: herald keys create [--label NAME] [--config herald.json] [--data-dir ./herald-data]
       herald keys content-key
       herald keys rotate-content [--config herald.json] [--data-dir ./herald-data]

create: makes an API key for the default tenant and prints it once. Herald keeps only a SHA-256
hash of it: a lost key cannot be shown again; create another.
content-key: prints a new 32-byte content key (base64) for encryption.key_env / key_file.
rotate-content: re-seals every stored message content (and audience rows' template data) with the primary content key, so the
keys listed in encryption.previous_keys can then be removed (docs/retention.md).
`;

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
  if (sub !== 'create' && sub !== 'rotate-content') throw new UsageError(`unknown keys command "${sub}"; try: herald keys create`);
  const flags = parseFlags(rest, {
    label: { type: 'string' },
    config: { type: 'string', short: 'c' },
    'data-dir': { type: 'string', short: 'd' },
  });
  if (flags.help) {
    process.stdout.write(KEYS_HELP);
    return 0;
  }
  const config = loadConfig(flags.config, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {});
  mkdirSync(config.data_dir, { recursive: true });
  const store = await openStore(config);
  if (sub === 'rotate-content') {
    try {
      const r = await rotateContent(store);
      process.stdout.write(`re-sealed ${r.resealed} of ${r.scanned} stored contents with the primary content key\n`);
      return 0;
    } finally {
      await store.close();
    }
  }
  const now = Date.now();
  await store.ensureTenant(DEFAULT_TENANT, now);
  const key = generateApiKey();
  await store.createApiKey({ id: newId('key', now), tenantId: DEFAULT_TENANT.id, keyHash: hashApiKey(key), label: flags.label ?? 'cli', now });
  await store.close();
  process.stdout.write(`${key}\n`);
  process.stderr.write('This key is shown once. Herald stores only its hash.\n');
  return 0;
}
