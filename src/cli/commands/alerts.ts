/**
 * `herald alerts test`: sends a test message to every configured operator alert target (config
 * `alerts:`) the way a real alert goes, straight through Herald's own provider adapters and the
 * signed webhook client, not through the queue, and prints one line per target with its
 * outcome. Each try is recorded in the alert history (GET /v1/alerts) as kind `test`.
 */
import { mkdirSync } from 'node:fs';
import pino from 'pino';
import { systemClock } from '../../clock.js';
import { sandboxAccounts } from '../../config/config.js';
import { createAlerter } from '../../runtime/alerter-wiring.js';
import { createAdapter, openStore } from '../../runtime/node.js';
import { CONFIG_FLAGS, parseFlags, UsageError } from '../args.js';
import { loadConfig } from '../load-config.js';

export const ALERTS_HELP = `Usage: herald alerts test [--config herald.json] [--data-dir ./herald-data]

Sends a test message to every operator alert target in the configuration (alerts.email,
alerts.sms, alerts.webhooks), through Herald's own provider accounts as a real alert would,
and prints one line per target with its outcome. Recorded in GET /v1/alerts as kind "test".

  -c, --config FILE    herald.json or herald.yaml (its alerts section)
  -d, --data-dir DIR   the SQLite file the history goes to (default ./herald-data);
                       PostgreSQL when DATABASE_URL is set

Exit status: 0 when every target took the message, 1 when one did not, 2 for a usage or
configuration error (no target configured, an account that does not exist).
`;

/** Runs `herald alerts <sub>`; resolves with the exit code. */
export async function alertsCommand(argv: string[], out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    out.write(ALERTS_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'test') throw new UsageError(`unknown alerts command "${sub}"; try: herald alerts test`);
  const flags = parseFlags(rest, CONFIG_FLAGS);
  if (flags.help) {
    out.write(ALERTS_HELP);
    return 0;
  }
  const config = loadConfig(flags.config, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {});
  // As `herald start` does: with no accounts configured, the sandbox's stand in.
  const accounts =
    config.provider_accounts.length === 0 && config.sandbox.enabled
      ? sandboxAccounts(`http://127.0.0.1:${config.sandbox.port}`, config.sandbox.api_key)
      : config.provider_accounts;
  const adapters = new Map(accounts.map((a) => [a.id, createAdapter(a, config.public_url)] as const));
  mkdirSync(config.data_dir, { recursive: true });
  const store = await openStore(config);
  try {
    const wired = createAlerter({ config, accounts, adapters, store, clock: systemClock, logger: pino({ level: 'silent' }) });
    if (!wired) throw new UsageError('no alert target is configured (alerts.email, alerts.sms or alerts.webhooks)');
    try {
      const results = await wired.alerter.sendTest();
      for (const r of results) {
        const tries = r.tries.map((t) => `${t.providerAccount ?? r.targetKind}${t.ok ? '' : ` failed (${t.errorClass})`}`).join(', then ');
        out.write(`${r.ok ? 'ok  ' : 'FAIL'}  ${r.targetKind.padEnd(7)} ${r.target}  ${r.ok ? 'sent' : 'not sent'}: ${tries}\n`);
      }
      const failed = results.filter((r) => !r.ok).length;
      out.write(failed === 0 ? `All ${results.length} target(s) took the test message.\n` : `${failed} of ${results.length} target(s) did not take it.\n`);
      return failed === 0 ? 0 : 1;
    } finally {
      wired.close();
    }
  } finally {
    await Promise.allSettled([...adapters.values()].map((a) => a.close()));
    await store.close();
  }
}
