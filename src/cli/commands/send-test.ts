/**
 * `herald send-test`: sends one message through a running Herald by its public API, the normal
 * path (intake, worker, provider, evidence), through the account named, and prints the
 * delivery's timeline as it unfolds: each attempt and its outcome, the state, and downstream
 * evidence (sent, delivered, bounced ...) as the provider reports it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_FLAGS, parseFlags, UsageError } from '../args.js';
import { loadConfig } from '../load-config.js';

export const SEND_TEST_HELP = `Usage: herald send-test --account ID --to ADDRESS [options]

Sends one test message through a running Herald (herald start, or herald api + worker)
and prints what happens to it: attempts, outcomes, state, provider evidence.

      --account ID     the provider account to send through (see GET /v1/provider-accounts)
      --to ADDRESS     an e-mail address, an E.164 phone number or a push token, as the
                       account's channel needs
      --text TEXT      the message (default: "Herald test message" and the time)
      --api URL        the Herald API (default: http://<host>:<port> of the configuration)
      --key KEY        an API key (default: $HERALD_API_KEY, else <data-dir>/bootstrap-key)
      --wait SECONDS   how long to follow provider evidence after acceptance (default 30)
  -c, --config FILE    herald.json or herald.yaml (for the API address and data dir)
  -d, --data-dir DIR   where the bootstrap key is (default ./herald-data)

Exit status: 0 when the provider accepted the message, 1 when it did not, 2 for a usage error.
`;

interface AttemptJson {
  number: number;
  started_at: string;
  finished_at: string | null;
  outcome: string | null;
  provider_message_id: string | null;
  error: { code: string | null; message: string | null } | null;
}
interface DeliveryJson {
  id: string;
  state: string;
  terminal_reason: string | null;
  downstream_status: string | null;
  next_attempt_at: string | null;
  attempts: AttemptJson[];
}

const FINAL_DOWNSTREAM = new Set(['delivered', 'read', 'bounced', 'failed', 'complained']);

/** Sends and follows one test message; resolves with the exit code. */
export async function sendTestCommand(argv: string[], out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const flags = parseFlags(argv, {
    account: { type: 'string' },
    to: { type: 'string' },
    text: { type: 'string' },
    api: { type: 'string' },
    key: { type: 'string' },
    wait: { type: 'string' },
    ...CONFIG_FLAGS,
  });
  if (flags.help) {
    out.write(SEND_TEST_HELP);
    return 0;
  }
  if (flags.account === undefined || flags.to === undefined) throw new UsageError('--account and --to are required (herald send-test --help)');
  const waitS = flags.wait === undefined ? 30 : Number(flags.wait);
  if (!Number.isFinite(waitS) || waitS < 0 || waitS > 3600) throw new UsageError('--wait must be a number of seconds from 0 to 3600');
  const config = loadConfig(flags.config, flags['data-dir'] !== undefined ? { dataDir: flags['data-dir'] } : {});
  const api = (flags.api ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`).replace(/\/+$/, '');
  const key = flags.key ?? process.env.HERALD_API_KEY ?? readKeyFile(join(config.data_dir, 'bootstrap-key'));
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) => {
    let res: Response;
    try {
      res = await fetch(`${api}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (err) {
      throw new UsageError(
        `cannot reach Herald at ${api} (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name}); is it running? (--api)`,
      );
    }
    return { status: res.status, json: (await res.json().catch(() => null)) as Record<string, unknown> | null };
  };

  const accounts = await call('GET', '/v1/provider-accounts');
  if (accounts.status === 401) throw new UsageError('Herald refused the API key (--key, HERALD_API_KEY or the bootstrap key)');
  const account = (accounts.json?.items as Array<{ id: string; channel: string; kind: string }> | undefined)?.find((a) => a.id === flags.account);
  if (!account) throw new UsageError(`Herald at ${api} has no provider account ${flags.account}`);
  const address = { email: 'email', sms: 'phone', push: 'push_token' }[account.channel] ?? 'email';
  const startedAt = Date.now();
  const sent = await call(
    'POST',
    '/v1/notifications',
    {
      recipient: { id: 'herald-send-test', [address]: flags.to },
      purpose: 'transactional',
      channels: [account.channel],
      provider_accounts: { [account.channel]: account.id },
      content: { subject: 'Herald test message', text: flags.text ?? `Herald test message, sent ${new Date(startedAt).toISOString()}` },
      ttl_seconds: 600,
      metadata: { herald_send_test: true },
    },
    { 'idempotency-key': `"send-test-${startedAt}"` },
  );
  if (sent.status !== 202) {
    const p = sent.json as { code?: string; detail?: string; errors?: Array<{ field: string; message: string }> } | null;
    out.write(`Herald refused the test message: ${sent.status} ${p?.code ?? ''} ${p?.detail ?? ''}\n`);
    for (const e of p?.errors ?? []) out.write(`  ${e.field} ${e.message}\n`);
    return 1;
  }
  const id = sent.json!.id as string;
  const at = (iso: string | null) => `+${(((iso ? Date.parse(iso) : Date.now()) - startedAt) / 1000).toFixed(1)}s`.padStart(8);
  out.write(`${at(null)}  notification ${id} accepted by Herald (account ${account.id}, ${account.kind}, ${account.channel})\n`);

  const seen = new Set<string>();
  const say = (what: string, line: string) => {
    if (seen.has(what)) return;
    seen.add(what);
    out.write(`${line}\n`);
  };
  let acceptedAt: number | null = null;
  let last: DeliveryJson | undefined;
  // Until acceptance (or a final state): the message's own 10-minute lifetime bounds the wait.
  for (;;) {
    const r = await call('GET', `/v1/notifications/${id}`);
    last = (r.json?.deliveries as DeliveryJson[] | undefined)?.[0];
    if (last) {
      for (const a of last.attempts) {
        say(`a${a.number}`, `${at(a.started_at)}  attempt ${a.number} started`);
        if (a.outcome !== null) {
          const detail = a.provider_message_id
            ? ` (provider id ${a.provider_message_id})`
            : a.error?.code
              ? ` (${a.error.code}${a.error.message ? `: ${a.error.message}` : ''})`
              : '';
          say(`o${a.number}`, `${at(a.finished_at)}  attempt ${a.number}: ${a.outcome}${detail}`);
        }
      }
      say(
        `s:${last.state}:${last.attempts.length}`,
        `${at(null)}  state ${last.state}${last.terminal_reason ? `/${last.terminal_reason}` : ''}${last.state === 'retryable' && last.next_attempt_at ? `, next attempt at ${last.next_attempt_at}` : ''}`,
      );
      if (last.downstream_status) say(`d:${last.downstream_status}`, `${at(null)}  provider evidence: ${last.downstream_status}`);
      if (last.state === 'accepted' && acceptedAt === null) acceptedAt = Date.now();
      if (last.state === 'terminal') break;
      if (acceptedAt !== null && (FINAL_DOWNSTREAM.has(last.downstream_status ?? '') || Date.now() - acceptedAt >= waitS * 1000)) break;
    }
    if (Date.now() - startedAt > 600_000) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const ok = acceptedAt !== null;
  out.write(
    ok
      ? `The provider accepted the message${last?.downstream_status ? `; last evidence: ${last.downstream_status}` : '; no delivery evidence yet (not every provider reports it)'}.\n`
      : `The provider did not accept the message: ${last?.state ?? 'unknown'}${last?.terminal_reason ? `/${last.terminal_reason}` : ''}.\n`,
  );
  return ok ? 0 : 1;
}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    throw new UsageError(`no API key: pass --key, set HERALD_API_KEY, or run from where ${path} exists`);
  }
}
