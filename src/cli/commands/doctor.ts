/**
 * `herald doctor`: before the first real send, asks each configured provider account's
 * provider, without sending anything, whether it can send: the configuration loads (so every
 * credential is present), the endpoint answers, the credentials are accepted, the sender is
 * verified. Exit 0 when every check passed, 1 when one failed, 2 for a configuration error.
 */
import { sandboxAccounts } from '../../config/config.js';
import { limitsWarnings } from '../../config/limits-config.js';
import { providerKind } from '../../providers/registry.js';
import type { ProviderAccountConfig } from '../../providers/provider.js';
import { parseFlags, UsageError } from '../args.js';
import { loadConfig } from '../load-config.js';

export const DOCTOR_HELP = `Usage: herald doctor [--config herald.json] [--account ID]

Checks every provider account (or the one named) without sending anything: the
configuration and its credentials load, the provider answers, the credentials are
accepted, the sender is verified. Prints one line per check; exits 1 if any failed.

  -c, --config FILE   herald.json or herald.yaml
      --account ID    check only this account
`;

/** Runs the checks; resolves with the exit code. */
export async function doctorCommand(argv: string[], out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const flags = parseFlags(argv, { config: { type: 'string', short: 'c' }, account: { type: 'string' } });
  if (flags.help) {
    out.write(DOCTOR_HELP);
    return 0;
  }
  // Loading validates everything, credentials included: a missing one is a ConfigError (exit 2) naming the account and the variable.
  const config = loadConfig(flags.config, {});
  let accounts: ProviderAccountConfig[] = config.provider_accounts;
  if (accounts.length === 0 && config.sandbox.enabled) accounts = sandboxAccounts(`http://127.0.0.1:${config.sandbox.port}`, config.sandbox.api_key);
  if (flags.account !== undefined) {
    accounts = accounts.filter((a) => a.id === flags.account);
    if (accounts.length === 0) throw new UsageError(`no provider account ${flags.account} is configured`);
  }
  // The limits on the way in are configuration, not a provider check: warned, never failed.
  for (const w of limitsWarnings(config.limits, accounts.filter((a) => a.channel === 'sms').length)) out.write(`warn  ${w}\n`);
  let failed = 0;
  for (const account of accounts) {
    out.write(`${account.id} (${account.kind}, ${account.channel})\n`);
    let checks;
    try {
      checks = await providerKind(account.kind).doctor(account, AbortSignal.timeout(Math.max(account.timeout_ms, 5_000)));
    } catch (err) {
      // A doctor must report, not throw; if one throws anyway, say which account and what kind of failure, not its message.
      checks = [{ name: 'check ran', ok: false, detail: `the check failed unexpectedly (${(err as Error).name})` }];
    }
    for (const c of checks) {
      if (!c.ok) failed++;
      out.write(`  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}\n`);
    }
  }
  out.write(failed === 0 ? `All ${accounts.length} account(s) look ready to send.\n` : `${failed} check(s) failed.\n`);
  return failed === 0 ? 0 : 1;
}
