/**
 * The smtp adapter (src/providers/smtp/) as a conformance subject, against a real SMTP server
 * (test/providers/fakes/smtp.ts: STARTTLS with the test's certificate, AUTH). Each class of
 * answer is scripted the way a relay gives it: a permanent refusal is Postfix's 550 5.1.1 at
 * RCPT TO (quoting the recipient, so the leak check bites), a retryable one 451 4.3.0 and a
 * throttle 421 4.7.0 to the end of data; transport faults strike at the SMTP stage they
 * name: a reset on the first body chunk (the final "." never sent), a reset or silence after
 * the whole body arrived. Herald's key travels as the Message-ID derived from it.
 */
import type { Channel } from '../../../src/domain/index.js';
import { createSmtpAdapter } from '../../../src/providers/smtp/adapter.js';
import { messageIdFor } from '../../../src/providers/smtp/build-message.js';
import type { AdapterSubject, ConformanceFake, ScriptedAnswer } from '../conformance/adapter-subject.js';
import { startSmtpFake, type SmtpFake } from '../fakes/smtp.js';
import { SMTP_PASSWORD, SMTP_USER, smtpAccount } from './smtp-account.js';

const DESTINATION = 'canary.wren+7f3a@example.test';
const NO_RETRY_AFTER = { skip: 'SMTP replies carry no Retry-After and no rate-limit header: a throttle is only its 4xx text' };

function script(fake: SmtpFake, answer: ScriptedAnswer): void {
  switch (answer.kind) {
    case 'accept':
      return;
    case 'permanent':
      return fake.next({
        kind: 'reply',
        at: 'rcpt',
        code: 550,
        text: `5.1.1 <${DESTINATION}>: Recipient address rejected: User unknown in virtual mailbox table`,
      });
    case 'retryable':
      return fake.next({ kind: 'reply', at: 'data_end', code: 451, text: '4.3.0 Mail server temporarily rejected message.' });
    case 'throttled':
      return fake.next({ kind: 'reply', at: 'data_end', code: 421, text: '4.7.0 Too many messages from your IP, rate limited; try again later' });
    case 'refuse_connection':
      return;
    case 'reset_while_writing':
      return fake.next({ kind: 'drop', at: 'body' });
    case 'reset_after_write':
      return fake.next({ kind: 'drop', at: 'data_end' });
    case 'hang':
      return fake.next({ kind: 'hang' });
    case 'malformed_answer':
      return fake.next({ kind: 'garbage', text: `HTTP/1.1 200 OK ${answer.canaries.join(' ')}` });
    case 'slow_answer':
      return fake.next({ kind: 'delay', ms: answer.delayMs });
  }
}

export const smtpSubject: AdapterSubject = {
  name: 'smtp',
  channels: ['email'],
  destinations: { email: DESTINATION },
  throttleHints: { none: true, retry_after_seconds: NO_RETRY_AFTER, retry_after_date: NO_RETRY_AFTER, provider_header: NO_RETRY_AFTER },
  // The Message-ID derived from the key, at the sender's domain (settings.from is @acme.test).
  idempotency: { carried: (key) => messageIdFor(key, 'acme.test') },
  keyInProgress: { skip: 'SMTP servers do not dedupe by Message-ID, so no key is ever in progress' },
  credentials: [SMTP_USER, SMTP_PASSWORD],
  async start(channel: Channel): Promise<ConformanceFake> {
    const fake = await startSmtpFake({ users: { [SMTP_USER]: SMTP_PASSWORD } });
    return {
      // The suite's 16 MiB body for "reset while writing" is text; HTML is not limited here.
      adapter: ({ timeoutMs }) => createSmtpAdapter(smtpAccount(fake, { id: `conformance-smtp-${channel}`, timeoutMs })),
      script: async (answer) => (answer.kind === 'refuse_connection' ? fake.refuse() : script(fake, answer)),
      received: async () => (await fake.received()).map((mail) => ({ carriedKey: mail.messageId })),
      acceptedIds: async () => fake.acceptedIds(),
      close: () => fake.close(),
    };
  },
};
