/**
 * The fault-proxy fault (fault-proxy.ts) each conformance transport fault maps to, for the push
 * fakes that listen behind the proxy (FCM, Web Push): the same mapping the sandbox fake makes.
 */
import type { ProxyFault } from './fault-proxy.js';
import { malformedHttpAnswer } from './http-framing.js';

// 64 KiB: well into a request that cannot be buffered whole, and nothing of it is forwarded.
const RESET_AFTER_BYTES = 64 * 1024;

export type ProxiedFaultKind = 'reset_while_writing' | 'reset_after_write' | 'hang' | 'slow_answer' | 'malformed_answer';

/** The proxy fault for a transport fault of the conformance suite. */
export function proxyFaultFor(kind: ProxiedFaultKind, extra: { delayMs?: number; canaries?: readonly string[] } = {}): ProxyFault {
  switch (kind) {
    case 'reset_while_writing':
      return { kind: 'reset_while_writing', afterBytes: RESET_AFTER_BYTES };
    case 'reset_after_write':
      return { kind: 'reset_after_write' };
    case 'hang':
      return { kind: 'hang' };
    case 'slow_answer':
      return { kind: 'delay_answer', ms: extra.delayMs ?? 0 };
    case 'malformed_answer':
      return { kind: 'replace_answer', bytes: malformedHttpAnswer(extra.canaries ?? []) };
  }
}
