/**
 * SMTP end to end: the harness's e-mail account replaced by an smtp account (configured
 * through resolveConfig, so the kind's defaults apply) sending to a real SMTP server; intake,
 * worker, reconciler and store on both drivers, a manual clock. For each fault: the state
 * Herald records, and how many copies the server received.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LADDERS, nextDelayMs, type Purpose } from '../../../src/domain/index.js';
import { resolveConfig } from '../../../src/config/config.js';
import type { ProviderAccountConfig } from '../../../src/providers/provider.js';
import { messageIdFor } from '../../../src/providers/smtp/build-message.js';
import { createHarness, DRIVERS, type Harness } from '../../helpers/harness.js';
import { startSmtpFake, type SmtpFake } from '../fakes/smtp.js';
import { SMTP_PASSWORD, SMTP_USER } from './smtp-account.js';

const DESTINATION = 'ada.lovelace@example.test';
const HOUR = 3_600_000;

/** The smtp account as `herald start` would configure it from JSON, under the sandbox e-mail account's id. */
function smtpAccountFrom(fake: SmtpFake, id: string): ProviderAccountConfig {
  const [account] = resolveConfig({
    provider_accounts: [
      {
        id,
        kind: 'smtp',
        channel: 'email',
        timeout_ms: 2_000,
        settings: {
          host: fake.host,
          port: fake.port,
          user: SMTP_USER,
          password: SMTP_PASSWORD,
          from: 'Acme Receipts <receipts@acme.test>',
          tls: { ca_file: fake.caFile },
        },
      },
    ],
  }).provider_accounts;
  return account!;
}

const emailBody = (purpose: Purpose) => ({
  recipient: { id: 'user-1', email: DESTINATION },
  purpose,
  channels: ['email'],
  content: { subject: purpose === 'otp' ? 'Your sign-in code' : 'Your receipt', text: purpose === 'otp' ? 'Your code is 481516' : 'Thank you for your order.' },
  ...(purpose === 'otp' ? { ttl_seconds: 600 } : {}),
});

describe.each(DRIVERS)('smtp end to end on %s', (driver) => {
  let h: Harness;
  let fake: SmtpFake;
  afterEach(async () => {
    await h?.close();
    await fake?.close();
  });

  const start = async () => {
    fake = await startSmtpFake({ users: { [SMTP_USER]: SMTP_PASSWORD } });
    h = await createHarness({ driver, account: (a) => (a.channel === 'email' ? smtpAccountFrom(fake, a.id) : a) });
  };
  const deliveryOf = async (notificationId: string) => {
    const r = await h.get(`/v1/notifications/${notificationId}`);
    expect(r.status).toBe(200);
    return r.json.deliveries[0];
  };
  const send = async (purpose: Purpose): Promise<string> => {
    const sent = await h.send(emailBody(purpose));
    expect(sent.status).toBe(202);
    return sent.json.id as string;
  };

  it('accepted: the message arrives with its derived Message-ID; the relay queue id is the provider id', async () => {
    await start();
    const id = await send('transactional');
    await h.worker.drain();
    const d = await deliveryOf(id);
    expect(d.state).toBe('accepted');
    expect(d.provider_message_id).toBe(fake.acceptedIds()[0]);
    const [mail, ...more] = await fake.received();
    expect(more).toEqual([]);
    expect(mail!.messageId).toBe(messageIdFor(d.idempotency_key, 'acme.test'));
    expect(mail!.parsed.headers.get('x-herald-reference')).toBe(d.idempotency_key);
  });

  it('the final reply lost after the body: unknown, the server has 1 copy, and no worker, sweep or reconciliation sends it again', async () => {
    await start();
    fake.next({ kind: 'drop', at: 'data_end' });
    const id = await send('transactional');
    expect((await h.worker.drain()).claimed).toBe(1);

    let d = await deliveryOf(id);
    expect(d.state).toBe('unknown');
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ outcome: 'unknown', error: { code: 'smtp_final_reply_lost' } });
    expect(await fake.received()).toHaveLength(1);

    // Time passes; workers, the sweeper and the reconciler run: nothing is resent.
    h.clock.advance(10 * 60_000);
    expect((await h.worker.drain()).claimed).toBe(0);
    expect((await h.newWorker({ workerId: 'worker-restarted' }).drain()).claimed).toBe(0);
    await h.sweeper.runOnce();
    await h.reconciler.runOnce();
    d = await deliveryOf(id);
    expect(d.state).toBe('unknown');

    // No look-up, no callbacks: wait_for_evidence ends it unresolved when the window closes.
    h.clock.advance(HOUR);
    await h.reconciler.runOnce();
    d = await deliveryOf(id);
    expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'unresolved' });
    expect(d.attempts).toHaveLength(1);
    expect((await h.worker.drain()).claimed).toBe(0);
    expect(await fake.received()).toHaveLength(1);
    expect(fake.connections()).toBe(1);
  });

  it('the final reply lost for a one-time code: unresolved at once (user_resend, the SMTP default for otp), still 1 copy', async () => {
    await start();
    fake.next({ kind: 'drop', at: 'data_end' });
    const id = await send('otp');
    await h.worker.drain();
    expect((await deliveryOf(id)).state).toBe('unknown');
    await h.reconciler.runOnce();
    const d = await deliveryOf(id);
    expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'unresolved' });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].resolution).toBe('policy_user_resend');
    expect(await fake.received()).toHaveLength(1);
  });

  it.each(['transactional', 'otp'] as const)(
    'a 4xx (451 4.3.0) on %s: retried on the purpose ladder, the second attempt arrives with the same Message-ID',
    async (purpose) => {
      await start();
      fake.next({ kind: 'reply', at: 'data_end', code: 451, text: '4.3.0 Mail server temporarily rejected message.' });
      const id = await send(purpose);
      const before = h.clock.now();
      await h.worker.drain();

      let d = await deliveryOf(id);
      expect(d.state).toBe('retryable');
      expect(d.attempts[0]).toMatchObject({ outcome: 'retryable', error: { code: 'smtp_451_4.3.0' } });
      // The harness worker draws 0.5 for jitter.
      expect(Date.parse(d.next_attempt_at) - before).toBe(nextDelayMs(LADDERS[purpose], 1, () => 0.5));

      // Not before its time.
      h.clock.set(Date.parse(d.next_attempt_at) - 1);
      expect((await h.worker.drain()).claimed).toBe(0);
      expect(await fake.received()).toHaveLength(1);

      h.clock.set(Date.parse(d.next_attempt_at));
      expect((await h.worker.drain()).claimed).toBe(1);
      d = await deliveryOf(id);
      expect(d.state).toBe('accepted');
      expect(d.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['retryable', 'accepted']);
      const received = await fake.received();
      expect(received).toHaveLength(2);
      expect(received[1]!.messageId).toBe(received[0]!.messageId);
      expect(fake.acceptedIds()).toHaveLength(1);
    },
  );

  it('a 5xx (550 5.1.1) ends terminal/rejected with the enhanced code on the attempt and no address in it; 0 copies', async () => {
    await start();
    fake.next({ kind: 'reply', at: 'rcpt', code: 550, text: `5.1.1 <${DESTINATION}>: Recipient address rejected: User unknown in virtual mailbox table` });
    const id = await send('transactional');
    await h.worker.drain();
    const d = await deliveryOf(id);
    expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'rejected' });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].error.code).toBe('smtp_550_5.1.1');
    expect(d.attempts[0].error.message).not.toContain(DESTINATION);
    expect(d.attempts[0].error.message).not.toContain('ada.lovelace');
    h.clock.advance(HOUR);
    expect((await h.worker.drain()).claimed).toBe(0);
    expect(await fake.received()).toEqual([]);
  });
});
