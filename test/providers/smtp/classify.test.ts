/**
 * The SMTP classifier on a table of real replies, each from the server's own documentation:
 * Gmail / Google Workspace (support.google.com/a/answer/3726730, "Gmail SMTP errors and
 * codes"), Amazon SES (docs.aws.amazon.com/ses/latest/dg/manage-sending-quotas-errors.html
 * and troubleshoot-error-messages.html), Microsoft 365 / Exchange Online
 * (learn.microsoft.com, "Email non-delivery reports and SMTP errors in Exchange Online", and
 * the 5.7.139 SMTP AUTH article), Postfix (postconf(5) defaults and the texts of
 * smtpd_recipient_restrictions / reject_sender_login_mismatch), and accepted-message replies
 * as Postfix, Exim, Sendmail and Gmail word them. Plus every transport failure at every step.
 */
import { describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../../src/domain/index.js';
import {
  acceptedMessageId,
  classifyFailure,
  classifyReply,
  parseReply,
  redactionsFor,
  sanitizeReplyText,
  type SmtpFailure,
  type SmtpStep,
} from '../../../src/providers/smtp/classify.js';

const DESTINATION = 'ada.lovelace@example.test';
const redact = redactionsFor(DESTINATION);

type Expect = Pick<SubmitOutcome, 'kind'> & { reason?: string; code: string };

interface Row {
  source: string;
  step: SmtpStep;
  reply: string;
  expect: Expect;
}

const ROWS: Row[] = [
  // ---- 4xx: retryable, or throttled where the reply speaks of the sender's rate.
  { source: 'Gmail', step: 'greeting', reply: '421 4.7.0 Try again later, closing connection.', expect: { kind: 'retryable', code: 'smtp_421_4.7.0' } },
  {
    source: 'Gmail',
    step: 'rcpt',
    reply: '421 4.7.0 TLS required for RCPT domain, closing connection.',
    expect: { kind: 'retryable', code: 'smtp_421_4.7.0' },
  },
  { source: 'Gmail', step: 'greeting', reply: '421 4.4.5 Server busy, try again later.', expect: { kind: 'retryable', code: 'smtp_421_4.4.5' } },
  {
    source: 'Gmail (long replies come as several lines)',
    step: 'mail',
    reply:
      '421-4.7.0 Our system has detected an unusual rate of unsolicited mail originating\n421-4.7.0 from your IP address. To protect our users from spam, mail sent from your IP\n421 4.7.0 address has been temporarily blocked.',
    expect: { kind: 'throttled', code: 'smtp_421_4.7.0' },
  },
  {
    source: 'Gmail',
    step: 'rcpt',
    reply: '450 4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend your message at a later time.',
    expect: { kind: 'retryable', code: 'smtp_450_4.2.1' },
  },
  {
    source: "Gmail (one recipient's rate: must not pause the account)",
    step: 'rcpt',
    reply: '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
    expect: { kind: 'retryable', code: 'smtp_450_4.2.1' },
  },
  {
    source: 'Gmail SMTP relay',
    step: 'rcpt',
    reply: '450 4.2.1 Peak SMTP relay limit exceeded for customer. This is a temporary error.',
    expect: { kind: 'throttled', code: 'smtp_450_4.2.1' },
  },
  { source: 'Gmail', step: 'final', reply: '451 4.3.0 Mail server temporarily rejected message.', expect: { kind: 'retryable', code: 'smtp_451_4.3.0' } },
  { source: 'Gmail', step: 'final', reply: '451 4.4.2 Timeout - closing connection.', expect: { kind: 'retryable', code: 'smtp_451_4.4.2' } },
  {
    source: 'Gmail',
    step: 'rcpt',
    reply: '452 4.2.2 The email account that you tried to reach is over quota.',
    expect: { kind: 'retryable', code: 'smtp_452_4.2.2' },
  },
  { source: 'Gmail', step: 'rcpt', reply: '452 4.5.3 Your message has too many recipients.', expect: { kind: 'retryable', code: 'smtp_452_4.5.3' } },
  { source: 'Gmail', step: 'auth', reply: '454 4.7.0 Too many login attempts, please try again later.', expect: { kind: 'throttled', code: 'smtp_454_4.7.0' } },
  { source: 'RFC 3207 §4', step: 'starttls', reply: '454 TLS not available due to temporary reason', expect: { kind: 'retryable', code: 'smtp_454' } },
  { source: 'Amazon SES', step: 'mail', reply: '454 Throttling failure: Maximum sending rate exceeded.', expect: { kind: 'throttled', code: 'smtp_454' } },
  { source: 'Amazon SES', step: 'mail', reply: '454 Throttling failure: Daily message quota exceeded.', expect: { kind: 'throttled', code: 'smtp_454' } },
  {
    source: 'Exchange Online',
    step: 'final',
    reply: '432 4.3.2 STOREDRV.Deliver; recipient thread limit exceeded',
    expect: { kind: 'retryable', code: 'smtp_432_4.3.2' },
  },
  {
    source: 'Exchange Online',
    step: 'mail',
    reply: '451 4.7.500 Server busy. Please try again later from [192.0.2.10].',
    expect: { kind: 'retryable', code: 'smtp_451_4.7.500' },
  },
  {
    source: 'Postfix (unknown_local_recipient_reject_code 450)',
    step: 'rcpt',
    reply: '450 4.1.1 <ada.lovelace@example.test>: Recipient address rejected: User unknown in local recipient table',
    expect: { kind: 'retryable', code: 'smtp_450_4.1.1' },
  },
  { source: 'Postfix', step: 'final', reply: '451 4.3.0 Error: queue file write error', expect: { kind: 'retryable', code: 'smtp_451_4.3.0' } },
  { source: 'Postfix', step: 'mail', reply: '452 4.3.1 Insufficient system storage', expect: { kind: 'retryable', code: 'smtp_452_4.3.1' } },
  {
    source: 'Postfix (bad sequence: the session, not the message)',
    step: 'data',
    reply: '503 5.5.1 Error: need RCPT command',
    expect: { kind: 'retryable', code: 'smtp_503_5.5.1' },
  },

  // ---- 5xx: permanent, with the reason the enhanced code and the command say.
  {
    source: 'Gmail',
    step: 'rcpt',
    reply: '550 5.1.1 The email account that you tried to reach does not exist.',
    expect: { kind: 'permanent', reason: 'invalid_destination', code: 'smtp_550_5.1.1' },
  },
  {
    source: 'Postfix',
    step: 'rcpt',
    reply: '550 5.1.1 <ada.lovelace@example.test>: Recipient address rejected: User unknown in virtual mailbox table',
    expect: { kind: 'permanent', reason: 'invalid_destination', code: 'smtp_550_5.1.1' },
  },
  {
    source: 'Postfix (recipient verified after DATA)',
    step: 'final',
    reply: '550 5.1.1 <ada.lovelace@example.test>: Recipient address rejected: User unknown',
    expect: { kind: 'permanent', reason: 'invalid_destination', code: 'smtp_550_5.1.1' },
  },
  {
    source: 'Gmail',
    step: 'rcpt',
    reply: "553 5.1.2 We weren't able to find the recipient domain.",
    expect: { kind: 'permanent', reason: 'invalid_destination', code: 'smtp_553_5.1.2' },
  },
  {
    source: 'Exchange Online',
    step: 'rcpt',
    reply: '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
    expect: { kind: 'permanent', reason: 'invalid_destination', code: 'smtp_550_5.1.10' },
  },
  {
    source: 'Gmail',
    step: 'rcpt',
    reply: '550 5.2.1 The email account that you tried to reach is disabled.',
    expect: { kind: 'permanent', reason: 'invalid_destination', code: 'smtp_550_5.2.1' },
  },
  {
    source: 'Gmail',
    step: 'rcpt',
    reply: '552 5.2.2 The email account that you tried to reach is over quota.',
    expect: { kind: 'permanent', reason: 'other', code: 'smtp_552_5.2.2' },
  },
  {
    source: 'Gmail',
    step: 'final',
    reply: "552 5.3.4 Your message exceeded Google's message size limits.",
    expect: { kind: 'permanent', reason: 'content_rejected', code: 'smtp_552_5.3.4' },
  },
  {
    source: 'Postfix (SIZE at MAIL FROM)',
    step: 'mail',
    reply: '552 5.3.4 Message size exceeds fixed limit',
    expect: { kind: 'permanent', reason: 'content_rejected', code: 'smtp_552_5.3.4' },
  },
  {
    source: 'Gmail',
    step: 'final',
    reply: '554 5.6.0 Mail message is malformed. Not accepted.',
    expect: { kind: 'permanent', reason: 'content_rejected', code: 'smtp_554_5.6.0' },
  },
  {
    source: 'Gmail',
    step: 'final',
    reply: '550 5.7.26 This mail has been blocked because the sender is unauthenticated. Gmail requires all senders to authenticate with either SPF or DKIM.',
    expect: { kind: 'permanent', reason: 'content_rejected', code: 'smtp_550_5.7.26' },
  },
  {
    source: 'Exchange Online',
    step: 'greeting',
    reply: '550 5.7.708 Service unavailable. Access denied, traffic not accepted from this IP.',
    expect: { kind: 'permanent', reason: 'content_rejected', code: 'smtp_550_5.7.708' },
  },
  {
    source: 'Postfix (RBL)',
    step: 'rcpt',
    reply: '554 5.7.1 Service unavailable; Client host [192.0.2.10] blocked using zen.spamhaus.org',
    expect: { kind: 'permanent', reason: 'content_rejected', code: 'smtp_554_5.7.1' },
  },
  {
    source: 'Postfix',
    step: 'rcpt',
    reply: '554 5.7.1 <ada.lovelace@example.test>: Relay access denied',
    expect: { kind: 'permanent', reason: 'unauthorized', code: 'smtp_554_5.7.1' },
  },
  {
    source: 'Postfix (reject_sender_login_mismatch)',
    step: 'mail',
    reply: '553 5.7.1 <receipts@acme.test>: Sender address rejected: not owned by user herald',
    expect: { kind: 'permanent', reason: 'unauthorized', code: 'smtp_553_5.7.1' },
  },
  {
    source: 'Gmail',
    step: 'auth',
    reply: '535 5.7.8 Username and Password not accepted.',
    expect: { kind: 'permanent', reason: 'unauthorized', code: 'smtp_535_5.7.8' },
  },
  {
    source: 'Amazon SES',
    step: 'auth',
    reply: '535 Authentication Credentials Invalid',
    expect: { kind: 'permanent', reason: 'unauthorized', code: 'smtp_535' },
  },
  {
    source: 'Exchange Online',
    step: 'auth',
    reply: '535 5.7.139 Authentication unsuccessful, SmtpClientAuthentication is disabled for the Tenant.',
    expect: { kind: 'permanent', reason: 'unauthorized', code: 'smtp_535_5.7.139' },
  },
  {
    source: 'Gmail',
    step: 'mail',
    reply: '530 5.7.0 Must issue a STARTTLS command first.',
    expect: { kind: 'permanent', reason: 'unauthorized', code: 'smtp_530_5.7.0' },
  },
  {
    source: 'Amazon SES',
    step: 'final',
    reply: '554 Message rejected: Email address is not verified. The following identities failed the check in region US-EAST-1: receipts@acme.test',
    expect: { kind: 'permanent', reason: 'unauthorized', code: 'smtp_554' },
  },
  {
    source: 'RFC 5321 §4.2.2 (no enhanced code)',
    step: 'rcpt',
    reply: '550 Requested action not taken: mailbox unavailable',
    expect: { kind: 'permanent', reason: 'invalid_destination', code: 'smtp_550' },
  },
  { source: 'RFC 5321 §4.2.2', step: 'final', reply: '554 Transaction failed', expect: { kind: 'permanent', reason: 'content_rejected', code: 'smtp_554' } },
  {
    source: 'RFC 5321 §3.1 (no service)',
    step: 'greeting',
    reply: '554 No SMTP service here',
    expect: { kind: 'permanent', reason: 'other', code: 'smtp_554' },
  },
  {
    source: 'smtp-server (STARTTLS disabled)',
    step: 'starttls',
    reply: '502 5.5.1 Error: command not implemented',
    expect: { kind: 'permanent', reason: 'other', code: 'smtp_502_5.5.1' },
  },
];

describe('classifyReply on real replies', () => {
  it.each(ROWS)('$source: $step $reply', ({ step, reply, expect: expected }) => {
    const parsed = parseReply(reply);
    expect(parsed).not.toBeNull();
    const outcome = classifyReply(step, parsed!, redact);
    expect(outcome).toMatchObject(expected);
    // SMTP has no Retry-After: nothing is invented.
    if (outcome.kind === 'retryable' || outcome.kind === 'throttled') expect(outcome.retryAfterMs ?? null).toBeNull();
    // The enhanced code stays on the attempt; addresses never do.
    if (outcome.kind !== 'accepted') {
      expect(outcome.message).not.toMatch(/@/);
      expect(outcome.message.toLowerCase()).not.toContain('ada.lovelace');
    }
  });
});

describe('parseReply', () => {
  it('reads the code, the enhanced code (when its class agrees) and the text of every line', () => {
    expect(parseReply('550 5.1.1 No such user')).toEqual({ code: 550, enhanced: '5.1.1', text: 'No such user' });
    expect(parseReply('250-first\n250 2.0.0 second')).toEqual({ code: 250, enhanced: null, text: 'first second' });
    expect(parseReply('421-4.7.0 one\r\n421 4.7.0 two')).toEqual({ code: 421, enhanced: '4.7.0', text: 'one two' });
    // A 5xx with a 4.x.x enhanced code: the enhanced code is not believed.
    expect(parseReply('550 4.1.1 odd')).toEqual({ code: 550, enhanced: null, text: '4.1.1 odd' });
  });

  it('refuses what is not a reply: no code, mixed codes, a continuation last, 1xx', () => {
    for (const raw of ['HELLO there', '', '550', '250-only a continuation', '250-a\n550 b', '150 odd', 'HTTP/1.1 200 OK'])
      expect(parseReply(raw), raw).toBeNull();
  });
});

describe('sanitizeReplyText', () => {
  it('takes out addresses, bracketed or bare, and the destination however quoted', () => {
    const text = 'mailbox <ada.lovelace@example.test> unknown; ada.lovelace@example.test; local part ADA.LOVELACE; other bob@x.test';
    const out = sanitizeReplyText(text, redact);
    expect(out).not.toMatch(/@|ada\.lovelace/i);
    expect(out).toContain('<address>');
  });

  it('keeps one line of at most 160 characters', () => {
    const out = sanitizeReplyText(`a\r\nb\u0000c ${'x'.repeat(400)}`);
    expect(['\r', '\n', '\u0000'].filter((c) => out.includes(c))).toEqual([]);
    expect(out.length).toBeLessThanOrEqual(160);
  });
});

describe('classifyFailure: where it broke decides', () => {
  const before: SmtpStep[] = ['queue', 'connect', 'greeting', 'ehlo', 'starttls', 'auth', 'envelope', 'mail', 'rcpt', 'data', 'body'];
  const causes = ['error', 'tls', 'timeout', 'aborted', 'malformed'] as const;

  it.each(before.flatMap((step) => causes.map((cause) => ({ step, cause }))))('$cause during $step: retryable (nothing was sent)', ({ step, cause }) => {
    expect(classifyFailure({ kind: 'transport', step, cause, code: 'ECONNRESET' }).kind).toBe('retryable');
  });

  it.each(causes.map((cause) => ({ cause })))('$cause after the final "." was sent: unknown, never retryable', ({ cause }) => {
    const outcome = classifyFailure({ kind: 'transport', step: 'final', cause, code: 'ECONNRESET' });
    expect(outcome.kind).toBe('unknown');
    expect(outcome).toMatchObject({ code: expect.stringMatching(/^smtp_final_reply_/) });
  });

  it('names the step: a slow greeting, a refused connection, a pool that stayed busy, a reset mid-body', () => {
    expect(classifyFailure({ kind: 'transport', step: 'greeting', cause: 'timeout' })).toMatchObject({ kind: 'retryable', code: 'smtp_greeting_timeout' });
    expect(classifyFailure({ kind: 'transport', step: 'connect', cause: 'error', code: 'ECONNREFUSED' })).toMatchObject({
      kind: 'retryable',
      code: 'smtp_connect_failed',
    });
    expect(classifyFailure({ kind: 'transport', step: 'queue', cause: 'timeout' })).toMatchObject({ kind: 'retryable', code: 'smtp_pool_busy' });
    const midBody = classifyFailure({ kind: 'transport', step: 'body', cause: 'error', code: 'EPIPE' });
    expect(midBody).toMatchObject({ kind: 'retryable', code: 'smtp_connection_lost' });
    expect(midBody.kind !== 'accepted' && midBody.message).toMatch(/never sent/);
  });

  it('a reply that does not parse is a malformed answer: unknown after the ".", retryable before', () => {
    const garbage = (step: SmtpStep): SmtpFailure => ({ kind: 'reply', step, reply: 'HELLO there canary' });
    expect(classifyFailure(garbage('final'))).toMatchObject({ kind: 'unknown', code: 'smtp_final_reply_malformed' });
    expect(classifyFailure(garbage('rcpt'))).toMatchObject({ kind: 'retryable', code: 'smtp_protocol_error' });
    expect(JSON.stringify(classifyFailure(garbage('final')))).not.toContain('canary');
  });

  it('a message over the SIZE the server announced is refused for good, nothing sent', () => {
    expect(classifyFailure({ kind: 'too_large', step: 'mail' })).toMatchObject({
      kind: 'permanent',
      reason: 'content_rejected',
      code: 'smtp_message_too_large',
    });
  });
});

describe('acceptedMessageId', () => {
  it.each([
    ['Postfix', '250 2.0.0 Ok: queued as 4F2C81A0B3', '4F2C81A0B3'],
    ['Exim', '250 OK id=1tQ4Xb-000Abc-2Q', '1tQ4Xb-000Abc-2Q'],
    ['Sendmail', '250 2.0.0 5B1FQx7e012345 Message accepted for delivery', '5B1FQx7e012345'],
    ['Gmail', '250 2.0.0 OK  1700000000 d75a77b69052e-4a8e9f1c2b3sm1234567qkl.12 - gsmtp', 'd75a77b69052e-4a8e9f1c2b3sm1234567qkl.12'],
    ['an unknown form', '250 2.0.0 Message accepted', null],
  ])('%s: %s', (_server, reply, id) => {
    expect(acceptedMessageId(reply)).toBe(id);
  });

  it("prefers the Message-ID a rewriting server reports (Amazon SES, Microsoft 365: nodemailer's serverMessageId)", () => {
    expect(acceptedMessageId('250 Ok 0100018b5c3c0a4f-aaaa-000000', '<0100018b5c3c0a4f-aaaa-000000@email.amazonses.com>')).toBe(
      '<0100018b5c3c0a4f-aaaa-000000@email.amazonses.com>',
    );
  });
});
