/** `herald sandbox`: runs the sandbox provider alone, so its ledger outlives Herald restarts. */
import { startSandbox } from '../../sandbox/index.js';
import { parseFlags, portFlag, UsageError } from '../args.js';

export const SANDBOX_HELP = `Usage: herald sandbox [--port 8025] [--host 127.0.0.1] [--api-key KEY] [--seed N]

Runs the sandbox provider: email (POST /emails), SMS (POST /2010-04-01/Accounts/:sid/Messages.json)
and push (POST /v1/projects/:project/messages:send) endpoints shaped like real providers, a ledger
of every submission it accepted (GET /ledger) and fault injection (POST /faults, DELETE /faults).

  --port      port to listen on (default 8025; 0 picks a free one)
  --host      address to listen on (default 127.0.0.1)
  --api-key   require "Authorization: Bearer KEY" on sends
  --seed      seed for probability faults, for reproducible runs
`;

export async function sandboxCommand(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    'api-key': { type: 'string' },
    seed: { type: 'string' },
  });
  if (flags.help) {
    process.stdout.write(SANDBOX_HELP);
    return 0;
  }
  const seed = flags.seed === undefined ? undefined : Number(flags.seed);
  if (seed !== undefined && !Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got ${flags.seed}`);
  const sandbox = await startSandbox({
    port: portFlag(flags.port, 'port') ?? 8025,
    host: flags.host ?? '127.0.0.1',
    ...(flags['api-key'] ? { apiKey: flags['api-key'] } : {}),
    ...(seed !== undefined ? { seed } : {}),
  });
  // Handlers before the "listening" line, so a signal sent as soon as it appears stops cleanly.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write(
    `Sandbox provider listening on ${sandbox.url} (seed ${sandbox.seed})\n  ledger: ${sandbox.url}/ledger\n  faults: ${sandbox.url}/faults\n`,
  );
  await stopped;
  await sandbox.close();
  return 0;
}
