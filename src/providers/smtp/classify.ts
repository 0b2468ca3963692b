/**
 * What an SMTP server answered, or how far a send got before it broke, as a SubmitOutcome.
 * Pure: no I/O, no clock. The rule that matters most is where the boundary lies: a server
 * takes responsibility for a message only when it answers 250 to the end-of-data indicator
 * (the lone `.`, RFC 5321 §4.1.1.4, §6.1), and it holds no message at all before that `.`
 * arrived. So every failure before the `.` was handed to the socket is `retryable` (nothing
 * was sent), and every failure after it without a final reply is `unknown`: RFC 5321
 * §4.5.3.2.6 warns that a timeout there "would typically result in delivery of multiple
 * copies of the message, since it has been successfully sent" (the duplicate problem of
 * RFC 1047).
 *
 * Definite replies are classified by their code and their enhanced status code (RFC 3463):
 * 4xx retryable (throttled when the text speaks of the sender's rate), 5xx permanent with a
 * reason read from the enhanced code and the command refused. SMTP has no Retry-After: a
 * throttled outcome never carries `retryAfterMs`. The enhanced code is kept in the outcome's
 * `code` (`smtp_550_5.1.1`); the reply's text goes into the message with every address
 * taken out, because servers echo recipients in their replies.
 */
import type { PermanentReason, SubmitOutcome } from '../../domain/index.js';

/**
 * Where a send stood. `queue`: waiting for a pooled connection; `connect` .. `auth`: setting
 * the session up; `envelope`: MAIL FROM, RCPT TO and DATA, before the server invited the body
 * (`mail`, `rcpt`, `data` when its reply says which command); `body`: the server answered 354
 * and the body is going out, the terminating `.` not yet handed to the socket; `final`: the
 * `.` was handed over, the final reply is awaited.
 */
export type SmtpStep = 'queue' | 'connect' | 'greeting' | 'ehlo' | 'starttls' | 'auth' | 'envelope' | 'mail' | 'rcpt' | 'data' | 'body' | 'final';

/** A parsed SMTP reply: its code, its enhanced status code (when the server gives one) and its text. */
export interface SmtpReply {
  code: number;
  enhanced: string | null;
  text: string;
}

export type SmtpFailure =
  /** The server answered the step with a complete reply (raw, as received; lines joined by \n or \r\n). */
  | { kind: 'reply'; step: SmtpStep; reply: string }
  /**
   * No usable reply: `error` (refused, reset, closed; `code` is the errno or TLS code), `tls`
   * (the handshake failed), `timeout` (timeout_ms ran out), `aborted` (the caller's signal),
   * `malformed` (the server sent a line that is not a reply).
   */
  | { kind: 'transport'; step: SmtpStep; cause: 'error' | 'tls' | 'timeout' | 'aborted' | 'malformed'; code?: string | undefined }
  /** The client refused before sending the envelope: the message is over the SIZE the server announced in EHLO (RFC 1870). */
  | { kind: 'too_large'; step: SmtpStep };

const STEP_LABEL: Record<SmtpStep, string> = {
  queue: 'waiting for a pooled connection',
  connect: 'connecting',
  greeting: 'the greeting',
  ehlo: 'EHLO',
  starttls: 'STARTTLS',
  auth: 'AUTH',
  envelope: 'the envelope (MAIL FROM, RCPT TO, DATA)',
  mail: 'MAIL FROM',
  rcpt: 'RCPT TO',
  data: 'DATA',
  body: 'the message body',
  final: 'the end of data',
};

const REPLY_LINE = /^(\d{3})([ -])(.*)$/;
const ENHANCED = /^([245])\.(\d{1,3})\.(\d{1,3})(?=\s|$)/;

/**
 * Parses a reply as nodemailer hands it over (multi-line replies joined by \n): every line
 * `<code>[ -]<text>` with one code, the last with a space. The enhanced status code is read
 * from the first line when its class agrees with the code's first digit. Null for anything
 * else: such an answer is not a reply.
 */
export function parseReply(raw: string): SmtpReply | null {
  const lines = raw.split(/\r?\n/).filter((line) => line !== '');
  if (lines.length === 0) return null;
  let code: number | null = null;
  const texts: string[] = [];
  for (const [i, line] of lines.entries()) {
    const m = REPLY_LINE.exec(line);
    if (m === null) return null;
    const lineCode = Number(m[1]);
    if (code !== null && lineCode !== code) return null;
    code = lineCode;
    if (m[2] === '-' && i === lines.length - 1) return null;
    texts.push(m[3]!.trim());
  }
  if (code === null || code < 200 || code > 599) return null;
  const klass = String(code)[0];
  const first = ENHANCED.exec(texts[0]!);
  const enhanced = first !== null && first[1] === klass ? `${first[1]}.${Number(first[2])}.${Number(first[3])}` : null;
  // Multi-line replies repeat the enhanced code on every line (RFC 2034 §3): keep the text only.
  const strip = (t: string): string => (ENHANCED.exec(t)?.[1] === klass ? t.replace(ENHANCED, '').trim() : t);
  const text = texts
    .map(strip)
    .filter((t) => t !== '')
    .join(' ');
  return { code, enhanced, text };
}

// eslint-disable-next-line no-control-regex -- control characters are what this takes out
const CONTROL = /[\u0000-\u001f\u007f]+/g;
const BRACKETED = /<[^<>]*>/g;
const BARE_ADDRESS = /[^\s<>"'()[\],;:]+@[^\s<>"'()[\],;:]+/g;
const MAX_TEXT = 160;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A reply's text fit for an outcome message: without the values in `redact` (the destination,
 * its local part), without anything in angle brackets (addresses, message ids) or shaped
 * like an address, on one line, at most 160 characters.
 */
export function sanitizeReplyText(text: string, redact: readonly string[] = []): string {
  let t = text.replace(CONTROL, ' ').replace(BRACKETED, '<address>').replace(BARE_ADDRESS, '<address>');
  for (const value of redact) {
    if (value.length >= 4) t = t.replace(new RegExp(escapeRegExp(value), 'gi'), '<address>');
  }
  t = t.replace(/\s+/g, ' ').trim();
  return t.length > MAX_TEXT ? `${t.slice(0, MAX_TEXT - 1)}…` : t;
}

/**
 * The values a recipient's address must not leave in a message: the address itself and its
 * local part (some servers quote only that).
 */
export function redactionsFor(destination: string): string[] {
  const at = destination.lastIndexOf('@');
  return at > 0 ? [destination, destination.slice(0, at)] : [destination];
}

/**
 * Texts of 4xx replies that speak of the sender's rate, not of one recipient's: Amazon SES's
 * "454 Throttling failure: Maximum sending rate exceeded" / "Daily message quota exceeded",
 * Gmail's "421 4.7.0 ... unusual rate of unsolicited mail" and "450 4.2.1 Peak SMTP relay
 * limit exceeded", "too many connections / login attempts". "Too many recipients" is about
 * one message.
 */
const SENDER_RATE = /\b(rate|throttl\w*|too many (?!recipients)|too frequent\w*|slow down|(quota|limit) exceeded|exceeded (the )?(\w+ )?(rate|quota|limit))/i;
/** ...and those about one recipient, which must not pause the whole account: Gmail's "The user you are trying to contact is receiving mail at a rate...", a full mailbox. */
const ONE_RECIPIENT = /\b(user|recipient|mailbox)\b|over quota/i;

function isSenderThrottle(reply: SmtpReply): boolean {
  return SENDER_RATE.test(reply.text) && !ONE_RECIPIENT.test(reply.text);
}

/** Setting the session up: a 5xx here concerns the account or the server, never the message. */
const SESSION_STEPS: ReadonlySet<SmtpStep> = new Set(['queue', 'connect', 'greeting', 'ehlo', 'starttls']);

/** Enhanced codes of refused credentials: 5.7.8 credentials invalid, 5.7.9 mechanism too weak, 5.7.14 trust relationship required (RFC 4954 §6, RFC 5248). */
const AUTH_DETAILS: ReadonlySet<number> = new Set([8, 9, 14]);
/** Reply codes of refused or required authentication (RFC 4954 §6; 538 "encryption required for requested authentication mechanism"). */
const AUTH_CODES: ReadonlySet<number> = new Set([530, 534, 535, 538]);

/** The permanent reason of a 5xx reply to `step`. */
export function permanentReason(step: SmtpStep, reply: SmtpReply): PermanentReason {
  if (step === 'auth' || AUTH_CODES.has(reply.code)) return 'unauthorized';
  const e = reply.enhanced === null ? null : reply.enhanced.split('.').map(Number);
  if (e !== null) {
    const [, subject, detail] = e as [number, number, number];
    // Size limits, at whichever command the server enforces them (SIZE at MAIL FROM, or the end of data).
    if ((subject === 2 && detail === 3) || (subject === 3 && detail === 4)) return 'content_rejected';
    if (subject === 7) {
      // Postfix's "554 5.7.1 <…>: Relay access denied" (at RCPT TO) and "553 5.7.1 <…>: Sender
      // address rejected: not owned by user" (at MAIL FROM): this account may not send this way,
      // whatever the message.
      if (AUTH_DETAILS.has(detail) || step === 'mail' || /\brelay/i.test(reply.text)) return 'unauthorized';
      // Security or policy status: spam filtering, DMARC (5.7.26), reputation blocks. The enhanced
      // code in the outcome's `code` says which.
      return 'content_rejected';
    }
    if (SESSION_STEPS.has(step) || step === 'mail') return 'other';
    switch (subject) {
      case 1:
        // 5.1.7 / 5.1.8 are about the sender's address, the rest about the recipient's.
        return detail === 7 || detail === 8 ? 'other' : 'invalid_destination';
      case 2:
        // 5.2.1 mailbox disabled; 5.2.2 mailbox full is the recipient's state, not a bad address.
        return detail === 1 ? 'invalid_destination' : 'other';
      case 4:
        // 5.4.4 unable to route: the recipient's domain has no mail host.
        return detail === 4 ? 'invalid_destination' : 'other';
      case 6:
        return 'content_rejected';
      default:
        return 'other';
    }
  }
  // Amazon SES: "554 Message rejected: Email address is not verified. The following identities
  // failed the check in region ...": the account may not send as this sender.
  if (/\bnot verified\b/i.test(reply.text)) return 'unauthorized';
  if (step === 'rcpt' && (reply.code === 550 || reply.code === 551 || reply.code === 553)) return 'invalid_destination';
  if (step === 'final' && (reply.code === 552 || reply.code === 554)) return 'content_rejected';
  return 'other';
}

function replyCode(reply: SmtpReply): string {
  return reply.enhanced === null ? `smtp_${reply.code}` : `smtp_${reply.code}_${reply.enhanced}`;
}

function describeReply(step: SmtpStep, reply: SmtpReply, redact: readonly string[]): string {
  const text = sanitizeReplyText(reply.text, redact);
  const head = reply.enhanced === null ? String(reply.code) : `${reply.code} ${reply.enhanced}`;
  return `server refused ${STEP_LABEL[step]}: ${head}${text === '' ? '' : ` ${text}`}`;
}

/** Classifies a definite refusal (a 4xx or 5xx reply) to `step`. */
export function classifyReply(step: SmtpStep, reply: SmtpReply, redact: readonly string[] = []): SubmitOutcome {
  const code = replyCode(reply);
  const message = describeReply(step, reply, redact);
  if (reply.code >= 400 && reply.code < 500) {
    return isSenderThrottle(reply) ? { kind: 'throttled', code, message, retryAfterMs: null } : { kind: 'retryable', code, message, retryAfterMs: null };
  }
  if (reply.code >= 500) {
    // 503 "bad sequence of commands" is the session's state, not the message's fate: the same
    // message can go through on a new connection (nodemailer's errors.js makes the same exception).
    if (reply.code === 503 && step !== 'auth') return { kind: 'retryable', code, message, retryAfterMs: null };
    return { kind: 'permanent', reason: permanentReason(step, reply), code, message };
  }
  // A 2xx or 3xx where a refusal was reported: not an answer this client understands.
  return step === 'final'
    ? { kind: 'unknown', code: 'smtp_final_reply_malformed', message: `unexpected ${reply.code} to the end of data; the server may have accepted the message` }
    : { kind: 'retryable', code: 'smtp_protocol_error', message: `unexpected ${reply.code} to ${STEP_LABEL[step]}; the message was not sent` };
}

function notSent(step: SmtpStep): string {
  return step === 'body' ? 'the message was not complete (its final "." was never sent), so the server holds no message' : 'the message was not sent';
}

/** Classifies a failure by where it happened: before the final `.` retryable, after it unknown. */
export function classifyFailure(failure: SmtpFailure, redact: readonly string[] = []): SubmitOutcome {
  if (failure.kind === 'reply') {
    const reply = parseReply(failure.reply);
    if (reply !== null) return classifyReply(failure.step, reply, redact);
    return classifyFailure({ kind: 'transport', step: failure.step, cause: 'malformed' }, redact);
  }
  if (failure.kind === 'too_large') {
    return {
      kind: 'permanent',
      reason: 'content_rejected',
      code: 'smtp_message_too_large',
      message: 'the message is larger than the SIZE the server announced; nothing was sent',
    };
  }
  const { step, cause } = failure;
  const detail = failure.code === undefined ? '' : ` (${failure.code})`;
  if (step === 'final') {
    switch (cause) {
      case 'timeout':
        return {
          kind: 'unknown',
          code: 'smtp_final_reply_timeout',
          message: 'no final reply within timeout_ms after the message was sent; the server may have accepted it',
        };
      case 'aborted':
        return { kind: 'unknown', code: 'smtp_final_reply_aborted', message: 'aborted after the message was sent; the server may have accepted it' };
      case 'malformed':
        return {
          kind: 'unknown',
          code: 'smtp_final_reply_malformed',
          message: 'the answer to the end of data was not an SMTP reply; the server may have accepted the message',
        };
      default:
        return {
          kind: 'unknown',
          code: 'smtp_final_reply_lost',
          message: `connection lost after the message was sent, before the final reply${detail}; the server may have accepted it`,
        };
    }
  }
  const label = STEP_LABEL[step];
  switch (cause) {
    case 'timeout':
      if (step === 'queue')
        return { kind: 'retryable', code: 'smtp_pool_busy', message: 'no pooled connection became free within timeout_ms; the message was not sent' };
      if (step === 'connect') return { kind: 'retryable', code: 'smtp_connect_failed', message: 'connecting timed out; the message was not sent' };
      if (step === 'greeting') return { kind: 'retryable', code: 'smtp_greeting_timeout', message: 'no greeting within timeout_ms; the message was not sent' };
      return { kind: 'retryable', code: 'smtp_timeout', message: `no answer to ${label} within timeout_ms; ${notSent(step)}` };
    case 'aborted':
      return { kind: 'retryable', code: 'aborted_before_send', message: `aborted during ${label}; ${notSent(step)}` };
    case 'tls':
      return { kind: 'retryable', code: 'smtp_tls_failed', message: `TLS failed during ${label}${detail}; the message was not sent` };
    case 'malformed':
      return { kind: 'retryable', code: 'smtp_protocol_error', message: `the answer to ${label} was not an SMTP reply; ${notSent(step)}` };
    case 'error':
      if (step === 'connect') return { kind: 'retryable', code: 'smtp_connect_failed', message: `cannot connect${detail}; the message was not sent` };
      return { kind: 'retryable', code: 'smtp_connection_lost', message: `connection lost during ${label}${detail}; ${notSent(step)}` };
  }
}

// Postfix "250 2.0.0 Ok: queued as 4F2C81A0B3"; Exim "250 OK id=1tQ4Xb-000Abc-2Q";
// Sendmail "250 2.0.0 5B1FQx7e012345 Message accepted for delivery"; Gmail
// "250 2.0.0 OK  1700000000 d75a77b69052e-4a8e9f1c2b3sm1234567qkl.12 - gsmtp".
const QUEUE_ID_PATTERNS: readonly RegExp[] = [
  /\bqueued as ([A-Za-z0-9]+)\b/i,
  /\bid=([A-Za-z0-9-]+)/,
  /^([A-Za-z0-9]{8,20}) Message accepted for delivery\b/,
  /^OK +\d+ (\S+) - gsmtp$/,
];

/**
 * The id the server gave an accepted message, for finding it in the relay's logs: the
 * Message-ID a rewriting server reports (`serverMessageId`, Amazon SES and Microsoft 365,
 * read by nodemailer), else the queue id in the reply's text in the forms above, else null.
 */
export function acceptedMessageId(reply: string, serverMessageId?: string | null): string | null {
  if (serverMessageId) return serverMessageId;
  const parsed = parseReply(reply);
  if (parsed === null) return null;
  for (const pattern of QUEUE_ID_PATTERNS) {
    const m = pattern.exec(parsed.text);
    if (m !== null) return m[1]!;
  }
  return null;
}
