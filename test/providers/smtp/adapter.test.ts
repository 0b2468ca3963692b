/**
 * The smtp adapter against a real SMTP server in the test process (test/providers/fakes/smtp.ts:
 * TCP, STARTTLS with a certificate made by the test, AUTH). What arrived is parsed with
 * mailparser and asserted on; for every fault stage the test says what Herald records and how
 * many copies the server received.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Purpose, SubmitOutcome } from '../../../src/domain/index.js';
import type { ProviderAdapter, SubmitRequest } from '../../../src/providers/provider.js';
import { createSmtpAdapter } from '../../../src/providers/smtp/adapter.js';
import { messageIdFor } from '../../../src/providers/smtp/build-message.js';
import { startSmtpFake, type SmtpFake, type SmtpFakeOptions } from '../fakes/smtp.js';
import { SMTP_PASSWORD, SMTP_USER, smtpAccount, type SmtpAccountOptions } from './smtp-account.js';

const DESTINATION = 'ada.lovelace@example.test';
const fakes: SmtpFake[] = [];
const adapters: ProviderAdapter[] = [];
let sequence = 0;

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.close()));
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function start(options: SmtpFakeOptions = {}, account: SmtpAccountOptions = {}): Promise<{ fake: SmtpFake; adapter: ProviderAdapter }> {
  const fake = await startSmtpFake({ users: { [SMTP_USER]: SMTP_PASSWORD }, ...options });
  fakes.push(fake);
  const adapter = createSmtpAdapter(smtpAccount(fake, account));
  adapters.push(adapter);
  return { fake, adapter };
}

function request(over: Partial<SubmitRequest> = {}, purpose: Purpose = 'transactional'): SubmitRequest {
  sequence += 1;
  const expiresAt = Date.now() + 10 * 60_000;
  return {
    deliveryId: `dlv-smtp-${sequence}`,
    idempotencyKey: `hk_smtp_test_${process.pid}_${sequence}`,
    channel: 'email',
    purpose,
    destination: DESTINATION,
    content: { subject: 'Your receipt', text: 'Thank you for your order.', html: '<p>Thank you for your <b>order</b>.</p>' },
    expiresAt,
    sendBy: expiresAt,
    ...over,
  };
}

/** Asserts no outcome quotes the destination or the relay's password. */
function expectClean(outcome: SubmitOutcome): void {
  const text = JSON.stringify(outcome);
  expect(text).not.toContain(DESTINATION);
  expect(text).not.toContain('ada.lovelace');
  expect(text).not.toContain(SMTP_PASSWORD);
}

function headerLine(mail: { parsed: { headerLines: ReadonlyArray<{ key: string; line: string }> } }, key: string): string | undefined {
  return mail.parsed.headerLines.find((h) => h.key === key.toLowerCase())?.line;
}

describe('what the server receives', () => {
  it('one message over STARTTLS and AUTH: From with its display name, Reply-To, To, Subject, text and html parts, the derived Message-ID, X-Herald-Reference', async () => {
    const { fake, adapter } = await start();
    const req = request();
    const outcome = await adapter.submit(req);
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: fake.acceptedIds()[0] });

    const [mail, ...more] = await fake.received();
    expect(more).toEqual([]);
    expect(mail!.secure).toBe(true);
    expect(mail!.user).toBe(SMTP_USER);
    expect(mail!.envelope).toEqual({ from: 'receipts@acme.test', to: [DESTINATION] });
    const { parsed } = mail!;
    expect(parsed.from?.value).toEqual([{ name: 'Acme Receipts', address: 'receipts@acme.test' }]);
    expect(parsed.replyTo?.value).toEqual([{ name: 'Acme Support', address: 'help@acme.test' }]);
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value : null).toEqual([{ name: '', address: DESTINATION }]);
    expect(parsed.subject).toBe('Your receipt');
    expect(parsed.text?.trim()).toBe('Thank you for your order.');
    expect(parsed.html).toBe('<p>Thank you for your <b>order</b>.</p>');
    expect(parsed.messageId).toBe(messageIdFor(req.idempotencyKey, 'acme.test'));
    expect(parsed.messageId).toMatch(/^<[0-9a-f]{32}@acme\.test>$/);
    expect(parsed.headers.get('x-herald-reference')).toBe(req.idempotencyKey);
  });

  it("the notification's content.from and content.reply_to win over the account's; the Message-ID follows the sender's domain", async () => {
    const { fake, adapter } = await start();
    const req = request({ content: { subject: 'Hi', text: 'Hello', from: '"Ada\'s Shop" <shop@shop.test>', reply_to: 'orders@shop.test' } });
    expect((await adapter.submit(req)).kind).toBe('accepted');
    const [mail] = await fake.received();
    expect(mail!.parsed.from?.value).toEqual([{ name: "Ada's Shop", address: 'shop@shop.test' }]);
    expect(mail!.parsed.replyTo?.value).toEqual([{ name: '', address: 'orders@shop.test' }]);
    expect(mail!.envelope.from).toBe('shop@shop.test');
    expect(mail!.messageId).toBe(messageIdFor(req.idempotencyKey, 'shop.test'));
  });

  it('settings.message_id_domain fixes the Message-ID domain whatever the sender', async () => {
    const { fake, adapter } = await start({}, { settings: { message_id_domain: 'mail.herald.test' } });
    const req = request();
    await adapter.submit(req);
    expect((await fake.received())[0]!.messageId).toBe(messageIdFor(req.idempotencyKey, 'mail.herald.test'));
  });

  it('the Message-ID is stable across two attempts of one delivery, and differs between deliveries', async () => {
    const { fake, adapter } = await start();
    const req = request();
    fake.next({ kind: 'reply', at: 'data_end', code: 451, text: '4.3.0 Mail server temporarily rejected message.' });
    expect((await adapter.submit(req)).kind).toBe('retryable');
    expect((await adapter.submit(req)).kind).toBe('accepted');
    const other = request();
    expect((await adapter.submit(other)).kind).toBe('accepted');
    const ids = (await fake.received()).map((m) => m.messageId);
    expect(ids).toHaveLength(3);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('marketing: List-Unsubscribe and List-Unsubscribe-Post from content.headers arrive byte for byte', async () => {
    const { fake, adapter } = await start();
    const url = 'https://herald.test/v1/unsubscribe/eyJ0IjoiZGVmYXVsdCIsInIiOiJ1c2VyLTEiLCJjIjoiZW1haWwiLCJwIjoibWFya2V0aW5nIn0.c2lnbmF0dXJl';
    const headers = { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
    expect((await adapter.submit(request({ content: { subject: 'News', text: 'Our news', html: '<p>Our news</p>', headers } }, 'marketing'))).kind).toBe(
      'accepted',
    );
    const [mail] = await fake.received();
    expect(headerLine(mail!, 'List-Unsubscribe')).toBe(`List-Unsubscribe: <${url}>`);
    expect(headerLine(mail!, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
  });

  it('non-ASCII display names and subjects are encoded and arrive intact', async () => {
    const { fake, adapter } = await start({}, { settings: { from: 'Zoë Ångström <zoe@acme.test>' } });
    await adapter.submit(request({ content: { subject: 'Votre reçu — 東京', text: 'Merci, déjà payé.' } }));
    const [mail] = await fake.received();
    expect(mail!.parsed.from?.value).toEqual([{ name: 'Zoë Ångström', address: 'zoe@acme.test' }]);
    expect(mail!.parsed.subject).toBe('Votre reçu — 東京');
    expect(mail!.parsed.text?.trim()).toBe('Merci, déjà payé.');
  });

  it('no header can be injected: a line break in the subject stays in the subject, content.headers cannot set From or Bcc-like fields', async () => {
    const { fake, adapter } = await start();
    await adapter.submit(request({ content: { subject: 'Hello\r\nBcc: thief@evil.test', text: 'x', headers: { From: 'thief@evil.test', 'X-Ok': 'fine' } } }));
    const [mail] = await fake.received();
    expect(mail!.envelope.to).toEqual([DESTINATION]);
    expect(mail!.parsed.headers.has('bcc')).toBe(false);
    expect(mail!.parsed.from?.value[0]?.address).toBe('receipts@acme.test');
    expect(mail!.parsed.headerLines.filter((h) => h.key === 'from')).toHaveLength(1);
    expect(headerLine(mail!, 'X-Ok')).toBe('X-Ok: fine');
  });

  it('an HTML part over max_html_bytes is refused for good without connecting (permanent, content_rejected)', async () => {
    const { fake, adapter } = await start({}, { account: { max_html_bytes: 2_048 } });
    const outcome = await adapter.submit(request({ content: { subject: 'Big', text: 'x', html: `<p>${'é'.repeat(1_100)}</p>` } }));
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'content_rejected', code: 'smtp_html_too_large' });
    expect(fake.connections()).toBe(0);
    expect(await fake.received()).toEqual([]);
  });

  it('implicit TLS (security: tls) sends over TLS from the first byte', async () => {
    const { fake, adapter } = await start({ tls: 'tls' }, { settings: { security: 'tls' } });
    expect((await adapter.submit(request())).kind).toBe('accepted');
    expect((await fake.received())[0]!.secure).toBe(true);
  });

  it('security none, without credentials, sends in clear to a relay that offers no TLS', async () => {
    const { fake, adapter } = await start({ tls: 'none', users: undefined }, { settings: { security: 'none', user: undefined, password: undefined } });
    expect((await adapter.submit(request())).kind).toBe('accepted');
    const [mail] = await fake.received();
    expect(mail!.secure).toBe(false);
    expect(mail!.user).toBeNull();
  });
});

describe('pooled sessions', () => {
  it('messages one after another share one connection (one TLS handshake, one AUTH)', async () => {
    const { fake, adapter } = await start();
    for (let i = 0; i < 3; i++) expect((await adapter.submit(request())).kind).toBe('accepted');
    expect(fake.connections()).toBe(1);
    expect(await fake.received()).toHaveLength(3);
  });

  it('concurrent messages open at most pool_size connections', async () => {
    const { fake, adapter } = await start({}, { settings: { pool_size: 2 } });
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => adapter.submit(request())));
    expect(outcomes.map((o) => o.kind)).toEqual(Array(6).fill('accepted'));
    expect(fake.connections()).toBeLessThanOrEqual(2);
    expect(await fake.received()).toHaveLength(6);
  });

  it('a refused recipient leaves the session usable (RSET), the next message goes out on it', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'reply', at: 'rcpt', code: 550, text: `5.1.1 <${DESTINATION}>: Recipient address rejected: User unknown` });
    expect((await adapter.submit(request())).kind).toBe('permanent');
    expect((await adapter.submit(request())).kind).toBe('accepted');
    expect(fake.connections()).toBe(1);
  });

  it('a reused session the server dropped before the envelope was answered: sent once more on a fresh session, the server gets one copy', async () => {
    const { fake, adapter } = await start();
    expect((await adapter.submit(request())).kind).toBe('accepted');
    fake.next({ kind: 'drop', at: 'mail' });
    expect((await adapter.submit(request())).kind).toBe('accepted');
    expect(fake.connections()).toBe(2);
    expect(await fake.received()).toHaveLength(2);
  });

  it('...but only once: dropped again, it is retryable, nothing received', async () => {
    const { fake, adapter } = await start();
    await adapter.submit(request());
    fake.next({ kind: 'drop', at: 'mail' });
    fake.next({ kind: 'drop', at: 'mail' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'smtp_connection_lost' });
    expect(await fake.received()).toHaveLength(1);
  });
});

describe('faults at each SMTP stage: what Herald records, how many copies the server received', () => {
  it('connection refused: retryable (smtp_connect_failed), 0 copies', async () => {
    const { fake, adapter } = await start();
    await fake.refuse();
    const outcome = await adapter.submit(request());
    expect(outcome).toMatchObject({ kind: 'retryable', code: 'smtp_connect_failed' });
    expect(await fake.received()).toEqual([]);
  });

  it('slow greeting beyond timeout_ms: retryable (smtp_greeting_timeout), 0 copies', async () => {
    const { fake, adapter } = await start({}, { timeoutMs: 300 });
    fake.slowGreeting(2_000);
    const outcome = await adapter.submit(request());
    expect(outcome).toMatchObject({ kind: 'retryable', code: 'smtp_greeting_timeout' });
    expect(await fake.received()).toEqual([]);
  });

  it('AUTH refused (535 5.7.8): permanent, unauthorized, the enhanced code kept, the password nowhere', async () => {
    const { fake, adapter } = await start({}, { settings: { password: 'wrong-password-canary' } });
    const outcome = await adapter.submit(request());
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'smtp_535_5.7.8' });
    expect(JSON.stringify(outcome)).not.toContain('wrong-password-canary');
    expect(await fake.received()).toEqual([]);
  });

  it('STARTTLS required but not offered: refused, never sent in clear (no AUTH, no message)', async () => {
    const { fake, adapter } = await start({ tls: 'none' });
    const outcome = await adapter.submit(request());
    expect(outcome.kind).toBe('permanent');
    expect(outcome).toMatchObject({ code: expect.stringMatching(/^smtp_5\d\d/) });
    expect(await fake.received()).toEqual([]);
  });

  it('a certificate that does not verify (no ca_file): retryable (smtp_tls_failed), 0 copies', async () => {
    const { fake, adapter } = await start({}, { settings: { tls: {} } });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'smtp_tls_failed' });
    expect(await fake.received()).toEqual([]);
  });

  it('dropped at MAIL FROM (before DATA): retryable, 0 copies', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'drop', at: 'mail' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'smtp_connection_lost' });
    expect(await fake.received()).toEqual([]);
  });

  it('dropped at RCPT TO (before DATA): retryable, 0 copies', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'drop', at: 'rcpt' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'smtp_connection_lost' });
    expect(await fake.received()).toEqual([]);
  });

  it('dropped while the body is still being written (its final "." never sent): retryable, 0 copies', async () => {
    const { fake, adapter } = await start({}, { account: { max_html_bytes: 8 * 1024 * 1024 } });
    // 4 MiB: more than the socket buffers hold, so the body is mid-way when the server resets.
    const big = request({ content: { subject: 'Big', text: 'x', html: `<p>${'y'.repeat(4 * 1024 * 1024)}</p>` } });
    fake.next({ kind: 'drop', at: 'body' });
    const outcome = await adapter.submit(big);
    expect(outcome).toMatchObject({
      kind: 'retryable',
      code: 'smtp_connection_lost',
      message: expect.stringMatching(/during the message body.*final "\." was never sent/),
    });
    expectClean(outcome);
    expect(await fake.received()).toEqual([]);
  });

  it('dropped after the whole body arrived, before the final reply: unknown (smtp_final_reply_lost), 1 copy', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'drop', at: 'data_end' });
    const outcome = await adapter.submit(request());
    expect(outcome).toMatchObject({ kind: 'unknown', code: 'smtp_final_reply_lost' });
    expect(await fake.received()).toHaveLength(1);
  });

  it('no final reply within timeout_ms after the body: unknown (smtp_final_reply_timeout), 1 copy', async () => {
    // Room for the greeting, EHLO and body on a loaded machine (300 ms timed out before the body
    // under CI load): the hang is after the body, so only the phase that times out is checked.
    const { fake, adapter } = await start({}, { timeoutMs: 1_500 });
    fake.next({ kind: 'hang' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'unknown', code: 'smtp_final_reply_timeout' });
    expect(await fake.received()).toHaveLength(1);
  });

  it('a final answer that is not an SMTP reply: unknown (smtp_final_reply_malformed), quoting nothing of it, 1 copy', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'garbage', text: `HTTP/1.1 200 OK ${DESTINATION} canary-garbage` });
    const outcome = await adapter.submit(request());
    expect(outcome).toMatchObject({ kind: 'unknown', code: 'smtp_final_reply_malformed' });
    expect(JSON.stringify(outcome)).not.toContain('canary-garbage');
    expectClean(outcome);
    expect(await fake.received()).toHaveLength(1);
  });

  it('aborted after the body was sent: unknown, 1 copy', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'hang' });
    const controller = new AbortController();
    const pending = adapter.submit(request(), controller.signal);
    await vi.waitFor(async () => expect(await fake.received()).toHaveLength(1), { timeout: 5_000, interval: 5 });
    controller.abort();
    expect(await pending).toMatchObject({ kind: 'unknown', code: 'smtp_final_reply_aborted' });
  });

  it('4xx to the end of data (451 4.3.0): retryable with the enhanced code, 1 copy (refused)', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'reply', at: 'data_end', code: 451, text: '4.3.0 Mail server temporarily rejected message.' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'smtp_451_4.3.0', retryAfterMs: null });
    expect(await fake.received()).toHaveLength(1);
    expect(fake.acceptedIds()).toEqual([]);
  });

  it('4xx to RCPT TO (450 4.2.1, one recipient busy): retryable, 0 copies', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'reply', at: 'rcpt', code: 450, text: '4.2.1 The user you are trying to contact is receiving mail too quickly.' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'smtp_450_4.2.1' });
    expect(await fake.received()).toEqual([]);
  });

  it('421 4.7.0 rate limit at MAIL FROM (the server closes): throttled, 0 copies', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'reply', at: 'mail', code: 421, text: '4.7.0 Too many messages from your IP, rate limited; try again later' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'throttled', code: 'smtp_421_4.7.0', retryAfterMs: null });
    expect(await fake.received()).toEqual([]);
    // The 421 closed the session: the next message opens a new one.
    expect((await adapter.submit(request())).kind).toBe('accepted');
    expect(fake.connections()).toBe(2);
  });

  it('5xx to RCPT TO (550 5.1.1): permanent invalid_destination, the code kept, the echoed address stripped, 0 copies', async () => {
    const { fake, adapter } = await start();
    fake.next({ kind: 'reply', at: 'rcpt', code: 550, text: `5.1.1 <${DESTINATION}>: Recipient address rejected: User unknown in virtual mailbox table` });
    const outcome = await adapter.submit(request());
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'invalid_destination', code: 'smtp_550_5.1.1' });
    expect(outcome.kind === 'permanent' && outcome.message).toContain('Recipient address rejected');
    expectClean(outcome);
    expect(await fake.received()).toEqual([]);
  });

  it('sendBy passed before the message could leave: retryable (expired_before_send), 0 copies', async () => {
    const { fake, adapter } = await start();
    expect(await adapter.submit(request({ sendBy: Date.now() - 1 }))).toMatchObject({ kind: 'retryable', code: 'expired_before_send' });
    expect(await fake.received()).toEqual([]);
  });

  it('a busy pool past timeout_ms: the waiting message is retryable, never sent', async () => {
    const { fake, adapter } = await start({}, { timeoutMs: 1_500, settings: { pool_size: 1 } });
    fake.next({ kind: 'hang' });
    const [first, second] = await Promise.all([adapter.submit(request()), adapter.submit(request())]);
    expect(first).toMatchObject({ kind: 'unknown', code: 'smtp_final_reply_timeout' });
    expect(second.kind).toBe('retryable');
    expect(await fake.received()).toHaveLength(1);
  });
});
