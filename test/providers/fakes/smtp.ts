/**
 * A real SMTP server in the test process (the `smtp-server` package) standing in for a relay:
 * it listens on TCP, offers STARTTLS with a certificate the test made (or implicit TLS, or
 * none), requires AUTH when given users, and parses what arrived with `mailparser`, so tests
 * assert on the received headers and parts rather than on what Herald meant to send.
 *
 * Faults are scripted per transaction (`next`), in order; a transaction takes the first one
 * queued when its MAIL FROM arrives, and an unscripted one is accepted with a Postfix-style
 * "250 2.0.0 Ok: queued as <id>". Replies are written exactly as scripted (enhanced status
 * codes included: smtp-server's own are turned off). `received()` lists every message whose
 * body arrived whole, refused ones included: the count of copies the relay got.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { generate } from 'selfsigned';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

/** Where a scripted fault strikes. `body`: on the first chunk of the body, before it is complete; `data_end`: once the whole body arrived, before the final reply. */
export type SmtpFakeStage = 'mail' | 'rcpt' | 'body' | 'data_end';

export type SmtpFault =
  /** Answer the command with this reply (e.g. 550 "5.1.1 <…>: Recipient address rejected: User unknown"). */
  | { kind: 'reply'; at: 'mail' | 'rcpt' | 'data_end'; code: number; text: string }
  /** Drop the connection (TCP reset) at this stage, answering nothing. */
  | { kind: 'drop'; at: SmtpFakeStage }
  /** Receive the whole body and never answer. */
  | { kind: 'hang' }
  /** Receive the whole body and accept it after `ms`. */
  | { kind: 'delay'; ms: number }
  /** Receive the whole body and answer with a line that is not an SMTP reply, then close. */
  | { kind: 'garbage'; text: string };

export interface ReceivedMail {
  envelope: { from: string | null; to: string[] };
  /** The AUTH user of the session, null without AUTH. */
  user: string | null;
  /** Whether the session was encrypted when the message arrived. */
  secure: boolean;
  raw: Buffer;
  parsed: ParsedMail;
  /** The Message-ID header as received, with its angle brackets. */
  messageId: string | null;
}

export interface SmtpFakeOptions {
  /** `starttls` (default): STARTTLS offered; `tls`: implicit TLS; `none`: plain, STARTTLS not offered. */
  tls?: 'starttls' | 'tls' | 'none';
  /** AUTH users and passwords; when given, AUTH is required before MAIL FROM. */
  users?: Record<string, string>;
}

export interface SmtpFake {
  host: string;
  port: number;
  /** PEM of the certificate the server presents (its own trust anchor), and a file holding it for `settings.tls.ca_file`. */
  caPem: string;
  caFile: string;
  /** Queues a fault for the next transaction. */
  next(fault: SmtpFault): void;
  /** Holds the greeting of the next `connections` connections for `ms`. */
  slowGreeting(ms: number, connections?: number): void;
  /** From now on nothing listens: every new connection is refused. */
  refuse(): Promise<void>;
  /** Every message whose body arrived whole, in order (parsed). */
  received(): Promise<ReceivedMail[]>;
  /** The queue ids of the messages accepted, in order. */
  acceptedIds(): string[];
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

interface Certificate {
  cert: string;
  key: string;
}

let certificate: Promise<Certificate> | null = null;

/** A self-signed certificate for localhost and 127.0.0.1, made once per test process (EC: fast). */
export function testCertificate(): Promise<Certificate> {
  certificate ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  }).then((pems) => ({ cert: pems.cert, key: pems.private }));
  return certificate;
}

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

/** Starts a fake relay on an ephemeral port of 127.0.0.1. */
export async function startSmtpFake(options: SmtpFakeOptions = {}): Promise<SmtpFake> {
  const mode = options.tls ?? 'starttls';
  const { cert, key } = await testCertificate();
  const dir = mkdtempSync(join(tmpdir(), 'herald-smtp-fake-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, cert);

  const faults: SmtpFault[] = [];
  const bySession = new Map<string, SmtpFault | null>();
  const rawSockets = new Map<number, Socket>();
  const pending: Array<Promise<ReceivedMail>> = [];
  const accepted: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let greetingDelay = { ms: 0, connections: 0 };
  let connectionCount = 0;

  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const drop = (session: SMTPServerSession): void => {
    rawSockets.get(session.remotePort)?.resetAndDestroy();
  };
  const faultAt = (session: SMTPServerSession, stage: SmtpFakeStage): SmtpFault | null => {
    const fault = bySession.get(session.id) ?? null;
    if (fault === null) return null;
    if (fault.kind === 'reply' || fault.kind === 'drop') return fault.at === stage ? fault : null;
    return stage === 'data_end' ? fault : null;
  };

  const users = options.users;
  const server = new SMTPServer({
    ...(mode === 'none' ? { disabledCommands: ['STARTTLS'] } : { key, cert }),
    secure: mode === 'tls',
    authOptional: users === undefined,
    hideENHANCEDSTATUSCODES: true,
    logger: false,
    // A closed fake ends its sessions at once, hung ones included.
    closeTimeout: 10,
    onConnect(_session, callback) {
      connectionCount++;
      if (greetingDelay.connections > 0) {
        greetingDelay.connections--;
        later(greetingDelay.ms, () => callback());
        return;
      }
      callback();
    },
    onAuth(auth, _session, callback) {
      if (users !== undefined && auth.username !== undefined && users[auth.username] === auth.password) return callback(null, { user: auth.username });
      callback(smtpError(535, '5.7.8 Authentication credentials invalid'));
    },
    onMailFrom(_address, session, callback) {
      bySession.set(session.id, faults.shift() ?? null);
      const fault = faultAt(session, 'mail');
      if (fault?.kind === 'drop') return drop(session);
      if (fault?.kind === 'reply') return callback(smtpError(fault.code, fault.text));
      callback();
    },
    onRcptTo(_address, session, callback) {
      const fault = faultAt(session, 'rcpt');
      if (fault?.kind === 'drop') return drop(session);
      if (fault?.kind === 'reply') return callback(smtpError(fault.code, fault.text));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      const dropInBody = faultAt(session, 'body')?.kind === 'drop';
      stream.on('data', (chunk: Buffer) => {
        if (dropInBody) return drop(session);
        chunks.push(chunk);
      });
      stream.on('end', () => {
        if (dropInBody) return;
        const raw = Buffer.concat(chunks);
        const envelope = {
          from: session.envelope.mailFrom === false ? null : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        const user = typeof session.user === 'string' ? session.user : null;
        pending.push(simpleParser(raw).then((parsed) => ({ envelope, user, secure: session.secure, raw, parsed, messageId: parsed.messageId ?? null })));
        const fault = faultAt(session, 'data_end');
        if (fault === null) {
          const id = randomBytes(5).toString('hex').toUpperCase();
          accepted.push(id);
          return callback(null, `2.0.0 Ok: queued as ${id}`);
        }
        switch (fault.kind) {
          case 'reply':
            return callback(smtpError(fault.code, fault.text));
          case 'drop':
            return drop(session);
          case 'hang':
            return;
          case 'delay':
            return later(fault.ms, () => {
              const id = randomBytes(5).toString('hex').toUpperCase();
              accepted.push(id);
              callback(null, `2.0.0 Ok: queued as ${id}`);
            });
          case 'garbage': {
            // smtp-server only writes replies it formats itself; raw bytes must go through the
            // session's own socket (the TLS one after STARTTLS: under it they would be noise).
            const connection = [...server.connections].find((c) => (c as unknown as { session?: { id?: string } }).session?.id === session.id);
            (connection as unknown as { _socket?: Socket } | undefined)?._socket?.write(`${fault.text}\r\n`);
            return;
          }
        }
      });
    },
  });
  server.server.on('connection', (socket: Socket) => {
    const port = socket.remotePort;
    if (port === undefined) return;
    rawSockets.set(port, socket);
    socket.once('close', () => rawSockets.delete(port));
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const t of timers) clearTimeout(t);
    for (const socket of rawSockets.values()) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  };

  return {
    host: '127.0.0.1',
    port,
    caPem: cert,
    caFile,
    next: (fault) => faults.push(fault),
    slowGreeting: (ms, connections = 1) => {
      greetingDelay = { ms, connections };
    },
    refuse: async () => {
      // Stops accepting at once; the sessions already open end at close().
      server.server.close();
    },
    received: () => Promise.all(pending),
    acceptedIds: () => [...accepted],
    connections: () => connectionCount,
    close,
  };
}
