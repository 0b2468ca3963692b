/**
 * The sandbox provider as a conformance fake: the real sandbox server (src/sandbox/) behind
 * the fault proxy. Definite answers are scripted through the sandbox's own faults, so they
 * come in its wire format (503 `server_error`, 400 `invalid_destination`, 429 with the
 * `throttle_headers` set asked for); transport faults through the proxy. What the fake
 * received is read off the wire at the proxy, refusals included (the ledger holds only what
 * the sandbox accepted).
 */
import type { ScriptedAnswer, ReceivedSubmission, ThrottleHint } from '../conformance/adapter-subject.js';
import { startSandbox, type SandboxHandle, type ThrottleHeaderSet } from '../../../src/sandbox/index.js';
import type { FaultProxy } from './fault-proxy.js';
import { parseHttpRequestHead } from './http-framing.js';
import { closeProxyAndFake, isTransportFault, scriptTransportFault, startHttpFaultProxy } from './proxy-faults.js';

const THROTTLE_HEADERS: Record<ThrottleHint, ThrottleHeaderSet> = {
  none: 'none',
  retry_after_seconds: 'retry_after',
  retry_after_date: 'retry_after_date',
  // The sandbox's own rate-limit fields (its quota's, Resend's) come beside Retry-After.
  provider_header: 'ratelimit',
};

export interface SandboxFake {
  /** The proxy's URL: configure adapters against this. */
  url: string;
  sandbox: SandboxHandle;
  proxy: FaultProxy;
  script(answer: ScriptedAnswer): Promise<void>;
  received(): Promise<ReceivedSubmission[]>;
  acceptedIds(): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts a sandbox that requires `apiKey`, with a fault proxy in front of it. */
export async function startSandboxFake(options: { apiKey: string }): Promise<SandboxFake> {
  const sandbox = await startSandbox({ apiKey: options.apiKey, seed: 1 });
  const proxy = await startHttpFaultProxy(sandbox.url);

  const script = async (answer: ScriptedAnswer): Promise<void> => {
    if (isTransportFault(answer)) return scriptTransportFault(proxy, answer);
    switch (answer.kind) {
      case 'accept':
        return;
      case 'permanent':
        sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
        return;
      case 'retryable':
        sandbox.faults.set({ mode: 'server_error', count: 1 });
        return;
      case 'throttled':
        sandbox.faults.set({
          mode: 'rate_limit',
          count: 1,
          retry_after_seconds: answer.seconds,
          throttle_headers: THROTTLE_HEADERS[answer.hint],
        });
        return;
    }
  };

  return {
    url: proxy.url,
    sandbox,
    proxy,
    script,
    // Sends are the POSTs; a look-up is a GET.
    received: async () =>
      proxy.forwarded
        .map(parseHttpRequestHead)
        .filter((head) => head.method === 'POST')
        .map((head) => ({ carriedKey: head.headers['idempotency-key'] ?? null })),
    acceptedIds: async () => sandbox.ledger.entries().map((entry) => entry.provider_message_id),
    close: () => closeProxyAndFake(proxy, sandbox),
  };
}
