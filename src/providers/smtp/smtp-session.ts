/**
 * One SMTP session with the bookkeeping truthful classification needs, on nodemailer's
 * SMTPConnection: `openSession` connects, reads the greeting, says EHLO, upgrades with
 * STARTTLS (required, never opportunistic) or starts in TLS, and authenticates; `sendOnce`
 * sends one message and says how far it got.
 *
 * Why Herald tracks the stage itself: nodemailer reports every transport failure (a reset, a
 * close, a socket timeout) with `command: 'CONN'` whatever the session was doing
 * (smtp-connection/index.js `_onSocketError`, `_onClose`, `_onTimeout`), and the reply to the
 * DATA command and the final reply after the body both carry `command: 'DATA'` (told apart
 * only by `code`: EENVELOPE for the first, EMESSAGE for the second). So the body is handed to
 * nodemailer as a stream Herald owns: nodemailer pipes it only once the server answered 354
 * (`_actionDATA` → `_createSendStream`), and writes the terminating `.` only after that stream
 * ended (DataStream's flush). "The stream was read" marks the body; "the stream ended" marks
 * the point after which the server may hold the whole message. The stream ends a buffer's
 * worth (< 64 KiB) before the `.` reaches the socket, so the boundary errs toward `unknown`.
 */
import { Readable } from 'node:stream';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { parseReply, type SmtpFailure, type SmtpStep } from './classify.js';
import type { BuiltMessage } from './build-message.js';
import type { SmtpSettings } from './settings.js';

/** The fields of a nodemailer error this module reads (errors.d.ts `NodemailerError`). */
interface MailerError {
  code?: string | undefined;
  originalCode?: string | undefined;
  command?: string | undefined;
  response?: string | undefined;
  timeoutType?: string | undefined;
}

// Slices the body is streamed in: small enough that "the stream ended" is close to "the `.`
// was written", large enough not to cost a write per line.
const BODY_SLICE_BYTES = 16 * 1024;
// An idle pooled connection is a socket the server may drop at any time; RFC 5321 §4.5.3.2.7
// gives servers at least 5 minutes, so this last-resort inactivity timer stays above it.
const SOCKET_INACTIVITY_MS = 6 * 60_000;

/** TLS handshake and certificate failures, as Node reports them (the socket's error code). */
const TLS_CODES: ReadonlySet<string> = new Set([
  'EPROTO',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
]);

const SETUP_TIMEOUT_STEPS: Readonly<Record<string, SmtpStep>> = {
  CONNECT_TIMEOUT: 'connect',
  GREETING_TIMEOUT: 'greeting',
  UPGRADE_TIMEOUT: 'starttls',
};

/** The step nodemailer's `command` names, when it names one (a reply's command, or a setup phase). */
function stepOfCommand(err: MailerError): SmtpStep | null {
  const command = err.command ?? '';
  if (command === 'EHLO' || command === 'HELO' || command === 'LHLO') return 'ehlo';
  if (command === 'STARTTLS') return 'starttls';
  if (command.startsWith('AUTH')) return 'auth';
  if (command === 'MAIL FROM') return 'mail';
  if (command === 'RCPT TO') return 'rcpt';
  if (command === 'DATA') return err.code === 'EMESSAGE' ? 'final' : 'data';
  return null;
}

/**
 * What a nodemailer error says happened, given the step Herald knows the session was at: a
 * complete reply (for the command the error names), or a transport failure at `step`.
 */
export function failureOf(err: MailerError, step: SmtpStep): SmtpFailure {
  const named = stepOfCommand(err);
  if (typeof err.response === 'string' && err.response !== '') {
    return { kind: 'reply', step: named ?? step, reply: err.response };
  }
  const code = err.originalCode ?? err.code;
  if (err.code === 'ETIMEDOUT') return { kind: 'transport', step: SETUP_TIMEOUT_STEPS[err.timeoutType ?? ''] ?? step, cause: 'timeout' };
  if (err.code === 'ETLS' || (code !== undefined && TLS_CODES.has(code))) return { kind: 'transport', step: named ?? step, cause: 'tls', code };
  return { kind: 'transport', step: named ?? step, cause: 'error', code };
}

/** A connected, authenticated session. */
export interface OpenSession {
  connection: SMTPConnection;
}

/** A deadline and an abort signal: the two ways a call can end before the server answers. */
export interface CallLimits {
  /** Epoch ms (Date.now()) when the call gives up. */
  until: number;
  signal?: AbortSignal | undefined;
}

/**
 * Runs `start` until it calls `settle`, the deadline passes or the signal aborts, whichever
 * comes first; `onLimit` says what a deadline or an abort means at that moment. Settles once.
 */
function withinLimits<T>(limits: CallLimits, onLimit: (cause: 'timeout' | 'aborted') => T, start: (settle: (value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve) => {
    let done = false;
    const settle = (value: T): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = (): void => settle(onLimit('aborted'));
    const timer = setTimeout(() => settle(onLimit('timeout')), Math.max(0, limits.until - Date.now()));
    if (limits.signal?.aborted === true) {
      settle(onLimit('aborted'));
      return;
    }
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    start(settle);
  });
}

/** The step a session stood at when it failed without a reply. */
function setupStep(connection: SMTPConnection, authenticating: boolean): SmtpStep {
  if (authenticating) return 'auth';
  if (connection.stage === 'init') return 'connect';
  return connection.upgrading === true ? 'starttls' : 'greeting';
}

// An idle pooled connection may fail at any time (the server drops it, a socket times out);
// nodemailer then emits 'error', which must have a listener. What it means is read elsewhere:
// by the send callback during a send, by the pool's 'end' listener when idle.
const ignoreError = (): void => {};

/**
 * Opens and authenticates one session within `limits`. Every failure is a setup failure:
 * nothing of a message has been sent on this connection.
 */
export async function openSession(
  settings: SmtpSettings,
  limits: CallLimits,
): Promise<{ ok: true; session: OpenSession } | { ok: false; failure: SmtpFailure }> {
  const budget = Math.max(1, limits.until - Date.now());
  const connection = new SMTPConnection({
    host: settings.host,
    port: settings.port,
    secure: settings.security === 'tls',
    // STARTTLS required, not opportunistic: a server that does not offer it fails the session.
    requireTLS: settings.security === 'starttls',
    ignoreTLS: settings.security === 'none',
    tls: {
      rejectUnauthorized: settings.tls.rejectUnauthorized,
      minVersion: settings.tls.minVersion,
      ...(settings.tls.ca === null ? {} : { ca: settings.tls.ca }),
      ...(settings.tls.servername === null ? {} : { servername: settings.tls.servername }),
    },
    ...(settings.ehloName === null ? {} : { name: settings.ehloName }),
    connectionTimeout: budget,
    greetingTimeout: budget,
    socketTimeout: SOCKET_INACTIVITY_MS,
    logger: false,
    debug: false,
  });
  connection.on('error', ignoreError);
  let authenticating = false;
  let onSetupError: (err: MailerError) => void = ignoreError;
  let onEnd: () => void = ignoreError;
  type Opened = { ok: true; session: OpenSession } | { ok: false; failure: SmtpFailure };
  const result = await withinLimits<Opened>(
    limits,
    (cause) => ({ ok: false, failure: { kind: 'transport', step: setupStep(connection, authenticating), cause } }),
    (settle) => {
      const fail = (failure: SmtpFailure): void => settle({ ok: false, failure });
      // nodemailer reports setup failures as 'error' events (and a close before the greeting to
      // the connect callback); whichever comes first settles. The connection is closed only
      // once settled: closing emits 'end', which would otherwise win.
      onSetupError = (err) => fail(failureOf(err, setupStep(connection, authenticating)));
      onEnd = () => fail({ kind: 'transport', step: setupStep(connection, authenticating), cause: 'error', code: 'ECONNECTION' });
      connection.on('error', onSetupError);
      connection.once('end', onEnd);
      connection.connect((err?: MailerError) => {
        if (err !== undefined) return fail(failureOf(err, setupStep(connection, false)));
        if (settings.security !== 'none' && !connection.secure) return fail({ kind: 'transport', step: 'starttls', cause: 'tls', code: 'NOT_SECURED' });
        if (settings.auth === null) return settle({ ok: true, session: { connection } });
        authenticating = true;
        // Credentials configured are always used, even when EHLO offers no AUTH: a relay that
        // does not authenticate this account should say so, not be used unauthenticated.
        connection.login({ user: settings.auth.user, pass: settings.auth.pass }, (loginErr) => {
          if (loginErr) return fail(failureOf(loginErr, 'auth'));
          authenticating = false;
          settle({ ok: true, session: { connection } });
        });
      });
    },
  );
  connection.removeListener('error', onSetupError);
  connection.removeListener('end', onEnd);
  if (!result.ok) connection.close();
  return result;
}

/** What one send on an open session came to. `reusable`: the session may carry another message. */
export type SendResult = { ok: true; reply: string; serverMessageId: string | null; reusable: true } | { ok: false; failure: SmtpFailure; reusable: boolean };

/** Streams `raw` in slices, reporting when it is first read and when it has been read whole. */
function bodyStream(raw: Buffer, onRead: () => void, onEnd: () => void): Readable {
  let offset = 0;
  const stream = new Readable({
    read() {
      if (offset === 0) onRead();
      if (offset >= raw.length) {
        this.push(null);
        return;
      }
      const end = Math.min(raw.length, offset + BODY_SLICE_BYTES);
      this.push(raw.subarray(offset, end));
      offset = end;
    },
  });
  stream.once('end', onEnd);
  return stream;
}

/** Sends one message on `session` within `limits`; never throws for the server's or the network's failure. */
export async function sendOnce(session: OpenSession, message: BuiltMessage, limits: CallLimits): Promise<SendResult> {
  const { connection } = session;
  let step: SmtpStep = 'envelope';
  const result = await withinLimits<SendResult>(
    limits,
    (cause) => ({ ok: false, failure: { kind: 'transport', step, cause }, reusable: false }),
    (settle) => {
      const body = bodyStream(
        message.raw,
        () => {
          if (step === 'envelope') step = 'body';
        },
        () => {
          step = 'final';
        },
      );
      connection.send(message.envelope, body, (err, info) => {
        if (err) {
          const e = err as MailerError;
          // nodemailer refused locally before writing a command (SIZE over the server's limit).
          if (e.command === 'MAIL FROM' && e.code === 'EMESSAGE' && e.response === undefined) {
            return settle({ ok: false, failure: { kind: 'too_large', step: 'mail' }, reusable: !connection.destroyed });
          }
          const failure = failureOf(e, step);
          // A refused envelope or message leaves the session usable (after RSET); a 421 or a
          // transport failure does not.
          const refused =
            failure.kind === 'reply' && parseReply(failure.reply) !== null && !/^421/.test(failure.reply) && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE');
          return settle({ ok: false, failure, reusable: refused && !connection.destroyed });
        }
        settle({ ok: true, reply: info.response, serverMessageId: info.serverMessageId ?? null, reusable: true });
      });
    },
  );
  // Given up on (deadline, abort) or broken: this connection carries nothing more.
  if (!result.ok && !result.reusable) connection.close();
  return result;
}

/** Resets a session after a refused envelope or message (RSET) within `timeoutMs`; false when it cannot carry another. */
export async function resetSession(session: OpenSession, timeoutMs: number): Promise<boolean> {
  const { connection } = session;
  if (connection.destroyed) return false;
  const reset = await withinLimits<boolean>(
    { until: Date.now() + timeoutMs },
    () => false,
    (settle) => connection.reset((err) => settle(!err)),
  );
  if (!reset) connection.close();
  return reset;
}
