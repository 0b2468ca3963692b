/** The `herald` command: one file per sub-command under commands/. */
import { ConfigError } from '../config/config.js';
import { UsageError } from './args.js';

// Commands load on use: `herald --help` should not pay for Fastify, pg and SQLite (~1 s here).
const serve = async (...a: Parameters<typeof import('./commands/serve.js').serve>) => (await import('./commands/serve.js')).serve(...a);
const sandboxCommand = async (argv: string[]) => (await import('./commands/sandbox.js')).sandboxCommand(argv);
const migrateCommand = async (argv: string[]) => (await import('./commands/migrate.js')).migrateCommand(argv);
const keysCommand = async (argv: string[]) => (await import('./commands/keys.js')).keysCommand(argv);
const doctorCommand = async (argv: string[]) => (await import('./commands/doctor.js')).doctorCommand(argv);
const sendTestCommand = async (argv: string[]) => (await import('./commands/send-test.js')).sendTestCommand(argv);
const tenantsCommand = async (argv: string[]) => (await import('./commands/tenants.js')).tenantsCommand(argv);
const usersCommand = async (argv: string[]) => (await import('./commands/users.js')).usersCommand(argv);
const phoneSimCommand = async (argv: string[]) => (await import('./commands/phone-sim.js')).phoneSimCommand(argv);
const alertsCommand = async (argv: string[]) => (await import('./commands/alerts.js')).alertsCommand(argv);

const SERVE_OPTIONS = `  -c, --config FILE     herald.json or herald.yaml (schema: src/config/herald-config.schema.json)
  -p, --port N          API port (default 8080; 0 picks a free one)
      --host ADDR       API address (default 127.0.0.1)
  -d, --data-dir DIR    SQLite file and bootstrap key (default ./herald-data)
`;

// `api` and `worker` accept the sandbox flags too: with no provider accounts configured they
// send through a separately run `herald sandbox`.
const SANDBOX_FALLBACK_OPTIONS = `      --sandbox-port N  port of a running \`herald sandbox\`, used when no provider accounts are configured (default 8025)
      --no-sandbox      do not fall back to the sandbox when no provider accounts are configured
`;

const START_HELP = `Usage: herald start [options]

Runs everything in one process: the API and every background service of \`herald worker\`
(see \`herald worker --help\`) and, unless provider accounts are configured (or
--no-sandbox), the sandbox provider, on an embedded SQLite file.

${SERVE_OPTIONS}      --sandbox-port N  sandbox port (default 8025)
      --no-sandbox      do not start the embedded sandbox

Environment: HERALD_BOOTSTRAP_KEY registers that API key for the default tenant;
HERALD_LOG_LEVEL (default info); HERALD_LOG_REQUESTS=1 logs every request.
`;

const API_HELP = `Usage: herald api [options]

Runs the HTTP API (intake, reads), the code fast path (\`worker.otp_fast_path\`) and the
sweeper (expired codes end \`terminal/expired\` on time while no worker runs). Pair it with one
or more \`herald worker\` processes on the same database.

${SERVE_OPTIONS}${SANDBOX_FALLBACK_OPTIONS}`;

const WORKER_HELP = `Usage: herald worker [options]

Runs the background services, no HTTP API:
  delivery worker     claims due deliveries per provider account and lane, calls providers,
                      records every outcome (persist before the call, never resend on ambiguity)
  sweeper             expired leases become \`unknown\`; expired challenges end \`terminal/expired\`
  reconciler          settles \`unknown\` deliveries: look-up by reference, else the account's
                      ambiguity policy
  evidence applier    applies recorded provider callbacks to deliveries (downstream status)
  fallback scheduler  creates the next channel's delivery when the previous one missed its deadline
  campaign runner     fans campaigns out into notifications at their planned pace
  webhook relay       publishes outbox events and sends signed customer webhooks
  phone reports       applies Android gateway phones' state reports to deliveries
  heartbeat sweep     when a phone comes back after being away, retries its failed messages
                      and re-offers its unknown ones under their ids
  operator alerts     with alerts: configured, evaluates the alert rules and tells the
                      operator (e-mail, SMS, signed webhook) when one fires and resolves
Run as many as you like against one PostgreSQL database; they share the provider quotas.

${SERVE_OPTIONS}${SANDBOX_FALLBACK_OPTIONS}      --metrics-port N  serve GET /metrics (Prometheus) on this port, for this process's counters
`;

export const HELP = `herald: notification delivery that never guesses

Usage: herald <command> [options]

Commands:
  start          API + workers + sandbox provider in one process (the default way to run)
  api            the HTTP API only
  worker         the background services only (delivery, sweeper, reconciler, evidence, ...)
  sandbox        the sandbox provider alone (ledger + fault injection)
  migrate        apply database migrations
  keys           API keys: list, create (printed once), revoke, rotate
  tenants        tenants and their provider accounts: create, list, assign, unassign
  users          dashboard users: create, list, revoke-sessions
  keys rotate-content  re-seal stored content with the primary content key
  doctor         check every provider account can send, without sending
  send-test      send one test message through a running Herald and follow it
  phone-sim      a simulated Android phone (SMSGate app) for an android_gateway account
  alerts test    send a test message to every operator alert target
  help [command] show help for a command

Run \`herald <command> --help\` for its options. Docs: README.md and docs/.
`;

const HELPS: Record<string, string> = { start: START_HELP, api: API_HELP, worker: WORKER_HELP };

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'start':
        return await serve(rest, ['api', 'worker'], START_HELP);
      case 'api':
        return await serve(rest, ['api'], API_HELP);
      case 'worker':
        return await serve(rest, ['worker'], WORKER_HELP);
      case 'sandbox':
        return await sandboxCommand(rest);
      case 'migrate':
        return await migrateCommand(rest);
      case 'keys':
        return await keysCommand(rest);
      case 'users':
        return await usersCommand(rest);
      case 'tenants':
        return await tenantsCommand(rest);
      case 'doctor':
        return await doctorCommand(rest);
      case 'send-test':
        return await sendTestCommand(rest);
      case 'phone-sim':
        return await phoneSimCommand(rest);
      case 'alerts':
        return await alertsCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h': {
        const topic = rest[0];
        if (topic && HELPS[topic]) process.stdout.write(HELPS[topic]);
        else if (topic === 'sandbox') return await sandboxCommand(['--help']);
        else if (topic === 'migrate') return await migrateCommand(['--help']);
        else if (topic === 'keys') return await keysCommand(['--help']);
        else if (topic === 'users') return await usersCommand(['--help']);
        else if (topic === 'tenants') return await tenantsCommand(['--help']);
        else if (topic === 'doctor') return await doctorCommand(['--help']);
        else if (topic === 'send-test') return await sendTestCommand(['--help']);
        else if (topic === 'phone-sim') return await phoneSimCommand(['--help']);
        else if (topic === 'alerts') return await alertsCommand(['--help']);
        else process.stdout.write(HELP);
        return command === undefined ? 2 : 0;
      }
      default:
        process.stderr.write(`herald: unknown command "${command}"\n\n${HELP}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`herald: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
