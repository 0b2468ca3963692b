/**
 * The long-running commands share one shape: load configuration, maybe start the embedded
 * sandbox, open the store, assemble the roles, start, and stop gracefully on SIGINT/SIGTERM.
 */
import { mkdirSync } from 'node:fs';
import { systemClock } from '../../clock.js';
import { checkConsistency, sandboxAccounts, type ConfigOverrides } from '../../config/config.js';
import { createHeraldNode, openStore, type Role } from '../../runtime/node.js';
import { createLogger } from '../../runtime/logger.js';
import { applyHeapPolicy } from '../../runtime/heap-policy.js';
import { startSandbox, type SandboxHandle } from '../../sandbox/index.js';
import { CONFIG_FLAGS, parseFlags, portFlag, UsageError } from '../args.js';
import { ensureBootstrapKey, type BootstrapResult } from '../bootstrap-key.js';
import { loadConfig } from '../load-config.js';
import { printBanner } from './banner.js';
import { generateWebhookSecret } from '../../signing/standard-webhooks.js';

export const SERVE_FLAGS = {
  ...CONFIG_FLAGS,
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  'sandbox-port': { type: 'string' },
  'no-sandbox': { type: 'boolean' },
  'metrics-port': { type: 'string' },
} as const;

/** Runs the given roles until a signal; resolves with the exit code. */
export async function serve(argv: string[], roles: Role[], help: string): Promise<number> {
  const flags = parseFlags(argv, SERVE_FLAGS);
  if (flags.help) {
    process.stdout.write(help);
    return 0;
  }
  // Peak memory is V8's heap growth, not live data: a fixed, smaller growing factor (runtime/heap-policy.ts).
  applyHeapPolicy();
  const overrides: ConfigOverrides = {
    ...(flags.host !== undefined ? { host: flags.host } : {}),
    ...(flags.port !== undefined ? { port: portFlag(flags.port, 'port') } : {}),
    ...(flags['data-dir'] !== undefined ? { dataDir: flags['data-dir'] } : {}),
    ...(flags['sandbox-port'] !== undefined ? { sandboxPort: portFlag(flags['sandbox-port'], 'sandbox-port') } : {}),
    ...(flags['no-sandbox'] ? { sandbox: false } : {}),
  };
  // The API serves /metrics on its own port; only a process without it needs another.
  if (flags['metrics-port'] !== undefined && roles.includes('api')) {
    throw new UsageError('--metrics-port is for herald worker: with the API, GET /metrics is served on the API port');
  }
  const metricsPort = portFlag(flags['metrics-port'], 'metrics-port');
  const config = loadConfig(flags.config, overrides);
  // Only the all-in-one process embeds the sandbox; `api` and `worker` point at a running one.
  const embedSandbox = roles.length === 2 && config.sandbox.enabled;
  mkdirSync(config.data_dir, { recursive: true });
  const logger = createLogger();

  let sandbox: SandboxHandle | null = null;
  if (embedSandbox) {
    sandbox = await startSandbox({ port: config.sandbox.port, host: '127.0.0.1', ...(config.sandbox.api_key ? { apiKey: config.sandbox.api_key } : {}) });
  }
  if (config.provider_accounts.length === 0 && config.sandbox.enabled) {
    // No accounts configured: send through the sandbox (embedded here, or `herald sandbox` on its port).
    config.provider_accounts = sandboxAccounts(sandbox?.url ?? `http://127.0.0.1:${config.sandbox.port}`, config.sandbox.api_key);
    // The embedded sandbox calls back with delivery events, signed with a secret made for this run.
    if (sandbox) config.provider_accounts = config.provider_accounts.map((a) => ({ ...a, callback_secrets: [generateWebhookSecret()] }));
    checkConsistency(config);
  }
  const store = await openStore(config, process.env, logger);
  let bootstrap: BootstrapResult | null = null;
  if (roles.includes('api')) bootstrap = await ensureBootstrapKey(store, config.data_dir, systemClock.now());
  const node = await createHeraldNode({ config, roles, logger, store, ...(metricsPort !== undefined ? { metricsPort } : {}) });
  const apiUrl = await node.start();
  if (sandbox && apiUrl) {
    for (const a of config.provider_accounts) {
      if (a.kind === 'sandbox' && a.callback_secrets?.[0])
        sandbox.callbacks.register(a.channel, { url: `${apiUrl}/v1/callbacks/${a.id}`, secret: a.callback_secrets[0] });
    }
  }
  // Handlers before the banner: whoever waits for the banner may signal at once, and a signal
  // with no handler yet would kill the process without a graceful stop.
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'stopping: finishing in-flight calls');
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  printBanner({ config, roles, apiUrl, sandboxUrl: sandbox?.url ?? null, bootstrap });
  await stopped;
  await node.close();
  await store.close();
  await sandbox?.close();
  logger.info('stopped');
  return 0;
}
