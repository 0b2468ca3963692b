/**
 * The worker's provider call: one `POST /2010-04-01/Accounts/sandbox/Messages.json` to the
 * sandbox, the same wire format as Herald's sandbox adapter (src/providers/sandbox/
 * build-request.ts: Twilio-shaped form `To`, `Body`; an `Idempotency-Key` header, which the
 * sandbox requires; a keep-alive agent with 64 sockets), and what the answer means for a BullMQ
 * job. A home-grown notifier has no `unknown` outcome: a lost answer is retried like any other
 * failure, which can send twice; the benchmark's ledger check shows whether it did.
 */
import http from 'node:http';

/** What the job does next: done, try again later (BullMQ's attempts and backoff), or give up. */
export type CallVerdict = { kind: 'sent' } | { kind: 'retry'; reason: string } | { kind: 'give_up'; reason: string };

/** Maps the sandbox's HTTP status to the job's next step. Pure. */
export function verdictFor(status: number): CallVerdict {
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 429) return { kind: 'retry', reason: 'provider answered 429 (rate limited)' };
  if (status === 408 || status >= 500) return { kind: 'retry', reason: `provider answered ${status}` };
  return { kind: 'give_up', reason: `provider answered ${status}` };
}

/** The form body Herald's adapter sends for an SMS. Pure. */
export function smsForm(to: string, text: string): Buffer {
  return Buffer.from(new URLSearchParams({ To: to, Body: text }).toString());
}

export interface SmsClient {
  send(to: string, text: string, idempotencyKey: string): Promise<CallVerdict>;
  close(): void;
}

/** A client for the sandbox at `baseUrl`, with a 10 s timeout per call (the benchmark accounts' timeout_ms). */
export function createSmsClient(baseUrl: string, timeoutMs = 10_000): SmsClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const url = new URL('/2010-04-01/Accounts/sandbox/Messages.json', baseUrl);
  return {
    send(to, text, idempotencyKey) {
      const body = smsForm(to, text);
      return new Promise((resolve) => {
        const req = http.request(
          url,
          {
            method: 'POST',
            agent,
            timeout: timeoutMs,
            headers: {
              accept: 'application/json',
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': String(body.length),
              'idempotency-key': idempotencyKey,
              'user-agent': 'bullmq-notifier',
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(verdictFor(res.statusCode ?? 0)));
            res.on('error', (err) => resolve({ kind: 'retry', reason: `answer lost: ${err.message}` }));
          },
        );
        req.on('timeout', () => req.destroy(new Error('timed out')));
        req.on('error', (err) => resolve({ kind: 'retry', reason: `request failed: ${err.message}` }));
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}
