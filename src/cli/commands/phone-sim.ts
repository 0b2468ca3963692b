/**
 * `herald phone-sim`: a simulated Android phone running the SMSGate app against a Herald, to try
 * the phone gateway without a phone. It registers with the account's private token, keeps an SSE
 * connection, pulls, "sends" (nothing leaves the machine) and reports states, like the app.
 * Commands on standard input: `offline`, `online`, `fail <error>` (the next message fails before
 * sending), `lose` (the next message is sent but its reports never arrive), `status`, `quit`;
 * without a terminal it runs until SIGINT or SIGTERM.
 */
import { createInterface } from 'node:readline';
import { PhoneSim, type MessageScript } from '../../devices/phone-sim.js';
import { parseFlags, UsageError } from '../args.js';

export const PHONE_SIM_HELP = `Usage: herald phone-sim --server URL --token TOKEN [options]

A simulated Android phone with the SMSGate app, in private-server mode with SSE only: it
registers, keeps an SSE connection, pulls the messages Herald offers it, "sends" them (nothing
leaves this machine) and reports their states, as the app does.

      --server URL       the app's API URL: Herald's URL and devices.base_path,
                         e.g. http://127.0.0.1:8080/mobile/v1
      --token TOKEN      the android_gateway account's private token
                         (default: $HERALD_PHONE_TOKEN)
      --name NAME        the device name (default Herald/phone-sim)
      --send-delay-ms N  between Processed and Sent (default 500)
      --deliver-delay-ms N  between Sent and Delivered (default 1000)
      --fail-rate R      share of messages that fail before sending, 0-1 (default 0)
      --fail-error TEXT  the app's error for those (default "Send result:
                         RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)")
      --sims N           SIM cards the phone reports, 0-3 (default 1)

Standard input: offline | online | fail [ERROR] | lose | status | quit
(without one, it runs until Ctrl-C or SIGTERM).
Exit status: 0 on quit, 1 when registration is refused, 2 for a usage error.
`;

function numberFlag(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) throw new UsageError(`--${name} must be a number from ${min} to ${max}, got ${value}`);
  return n;
}

/** Runs the simulator until `quit` (or end of input); resolves with the exit code. */
export async function phoneSimCommand(
  argv: string[],
  input: NodeJS.ReadableStream = process.stdin,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const flags = parseFlags(argv, {
    server: { type: 'string' },
    token: { type: 'string' },
    name: { type: 'string' },
    'send-delay-ms': { type: 'string' },
    'deliver-delay-ms': { type: 'string' },
    'fail-rate': { type: 'string' },
    'fail-error': { type: 'string' },
    sims: { type: 'string' },
  });
  if (flags.help) {
    out.write(PHONE_SIM_HELP);
    return 0;
  }
  const token = flags.token ?? process.env.HERALD_PHONE_TOKEN;
  if (!flags.server) throw new UsageError('--server is required (the app\u2019s API URL, e.g. http://127.0.0.1:8080/mobile/v1)');
  if (!/^https?:\/\//.test(flags.server)) throw new UsageError('--server must be an http(s) URL');
  if (!token) throw new UsageError('--token (or $HERALD_PHONE_TOKEN) is required: the android_gateway account\u2019s private token');
  const failRate = numberFlag(flags['fail-rate'], 'fail-rate', 0, 1, 0);
  const failError = flags['fail-error'] ?? 'Send result: RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)';
  const sims = numberFlag(flags.sims, 'sims', 0, 3, 1);
  const line = (s: string) => out.write(`${new Date().toISOString()} ${s}\n`);
  const sim = new PhoneSim({
    server: flags.server,
    privateToken: token,
    ...(flags.name ? { name: flags.name } : {}),
    sendDelayMs: numberFlag(flags['send-delay-ms'], 'send-delay-ms', 0, 600_000, 500),
    deliverDelayMs: numberFlag(flags['deliver-delay-ms'], 'deliver-delay-ms', 0, 600_000, 1_000),
    simCards: Array.from({ length: sims }, (_, i) => ({ slotIndex: i, simNumber: i + 1, phoneNumber: `********000${i}`, carrierName: '**im' })),
    log: line,
  });
  // --fail-rate: each unscripted message fails with this probability (scripts from stdin come first).
  const pick = (): MessageScript => (Math.random() < failRate ? { kind: 'fail', error: failError } : { kind: 'deliver' });
  const refill = setInterval(() => {
    if (failRate > 0) sim.script(pick());
  }, 1_000);
  refill.unref();
  try {
    await sim.start();
  } catch (err) {
    line((err as Error).message);
    clearInterval(refill);
    return 1;
  }
  line(`device ${sim.registration!.id} online; commands: offline | online | fail [ERROR] | lose | status | quit`);
  const rl = createInterface({ input });
  let quit = false;
  for await (const raw of rl) {
    const [cmd, ...rest] = raw.trim().split(/\s+/);
    if (cmd === 'quit' || cmd === 'exit') {
      quit = true;
      break;
    }
    if (cmd === 'offline') await sim.goOffline();
    else if (cmd === 'online') await sim.comeBack();
    else if (cmd === 'fail') sim.script({ kind: 'fail', error: rest.length > 0 ? rest.join(' ') : failError });
    else if (cmd === 'lose') sim.script({ kind: 'lose_reports' });
    else if (cmd === 'status') line(`${sim.sends.length} sent, ${sim.pulls.length} pulls, ${sim.connections} SSE connections`);
    else if (cmd) line(`unknown command ${cmd}`);
  }
  // No terminal (run in the background, stdin closed): keep being a phone until told to stop.
  if (!quit)
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  clearInterval(refill);
  await sim.close();
  return 0;
}
