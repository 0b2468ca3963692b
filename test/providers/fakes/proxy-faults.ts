/**
 * The fault proxy (fault-proxy.ts) as every HTTP/1.1 fake and subject uses it: started in front
 * of the fake's URL, closed before the fake, and armed with the conformance suite's transport
 * faults, written once here. A subject or fake hands the transport faults here and keeps only
 * its provider's definite answers.
 *
 * Not in fault-proxy.ts itself: the proxy knows nothing of the conformance suite or of HTTP
 * (it frames any request/answer protocol), while this mapping needs both.
 */
import type { ScriptedAnswer } from '../conformance/adapter-subject.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { httpRequestLength, malformedHttpAnswer } from './http-framing.js';

// 64 KiB: well into a request that cannot be buffered whole, and nothing of it is forwarded.
const RESET_AFTER_BYTES = 64 * 1024;

/** Starts the fault proxy in front of the HTTP/1.1 fake listening at `fakeUrl`. */
export async function startHttpFaultProxy(fakeUrl: string): Promise<FaultProxy> {
  const upstream = new URL(fakeUrl);
  return startFaultProxy({ upstream: { host: upstream.hostname, port: Number(upstream.port) }, frame: httpRequestLength });
}

/** Closes the proxy, then the fake behind it even when the proxy rejects (a fault that did not apply as armed). */
export async function closeProxyAndFake(proxy: FaultProxy, fake: { close(): Promise<void> }): Promise<void> {
  try {
    await proxy.close();
  } finally {
    await fake.close();
  }
}

/** The scripted answers that are faults of the connection, not answers of the provider. */
export type TransportFault = Extract<
  ScriptedAnswer,
  { kind: 'refuse_connection' | 'reset_while_writing' | 'reset_after_write' | 'hang' | 'malformed_answer' | 'slow_answer' }
>;

/** What a provider's fake itself must answer: everything that is not a transport fault. */
export type DefiniteAnswer = Exclude<ScriptedAnswer, TransportFault>;

const TRANSPORT_FAULT_KINDS: ReadonlySet<ScriptedAnswer['kind']> = new Set<TransportFault['kind']>([
  'refuse_connection',
  'reset_while_writing',
  'reset_after_write',
  'hang',
  'malformed_answer',
  'slow_answer',
]);

/** True when `answer` is a fault of the connection, which the proxy plays and the fake never sees as such. */
export function isTransportFault(answer: ScriptedAnswer): answer is TransportFault {
  return TRANSPORT_FAULT_KINDS.has(answer.kind);
}

/** Arms `proxy` with the fault for `answer` (for `refuse_connection`: stops it listening). */
export function scriptTransportFault(proxy: FaultProxy, answer: TransportFault): void {
  switch (answer.kind) {
    case 'refuse_connection':
      proxy.refuse();
      return;
    case 'reset_while_writing':
      proxy.next({ kind: 'reset_while_writing', afterBytes: RESET_AFTER_BYTES });
      return;
    case 'reset_after_write':
      proxy.next({ kind: 'reset_after_write' });
      return;
    case 'hang':
      proxy.next({ kind: 'hang' });
      return;
    case 'malformed_answer':
      proxy.next({ kind: 'replace_answer', bytes: malformedHttpAnswer(answer.canaries) });
      return;
    case 'slow_answer':
      proxy.next({ kind: 'delay_answer', ms: answer.delayMs });
      return;
  }
}
