/**
 * A fake of the Amazon SES API v2 endpoint (`email.<region>.amazonaws.com`), close enough to the
 * real one that a request SES would refuse is refused:
 *
 * - every request must carry a valid Signature Version 4 (recomputed with `aws4` from the
 *   bytes received, for the configured key, region and service `ses`, at most 5 minutes old;
 *   the session token must match when one is configured) — else 403 with SES's error types;
 * - SendEmail (`POST /v2/email/outbound-emails`) must have FromEmailAddress, 1 to 50
 *   destination addresses, exactly one of Simple (Subject, a Text or Html body, at most 15
 *   Headers with SES's name/value rules) or Raw, tags with SES's charset, and a configuration
 *   set that exists — else 400 BadRequestException / 404 NotFoundException, as SES answers;
 * - GetAccount, GetEmailIdentity and GetConfigurationSetEventDestinations answer what the test
 *   configured, for `herald doctor`.
 *
 * Errors come as SES sends them: status, `x-amzn-ErrorType`, `{"message": …}` (whose text, like
 * SES's, may quote the address). Answers are scripted per request by class, and transport faults
 * are made by the fake itself (reset before or after reading the request, hang, bytes that are
 * not HTTP, a late answer, nothing listening).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import aws4 from 'aws4';

export type SesScript =
  | { kind: 'accept' }
  /** MessageRejected, quoting the destination as SES does for an unverified address. */
  | { kind: 'permanent' }
  /** 503 ServiceUnavailable. */
  | { kind: 'retryable' }
  /** 429 TooManyRequestsException "Maximum sending rate exceeded." (SES sends no Retry-After). */
  | { kind: 'throttled' }
  /** Any SES error: where the type travels (`header`: x-amzn-ErrorType, `type`: body `__type`, `code`: body `code`). */
  | { kind: 'error'; status: number; type: string | null; message: string; typeIn?: 'header' | 'type' | 'code' }
  | { kind: 'refuse_connection' }
  | { kind: 'reset_while_writing' }
  | { kind: 'reset_after_write' }
  | { kind: 'hang' }
  | { kind: 'malformed_answer'; canaries: readonly string[] }
  | { kind: 'slow_answer'; delayMs: number };

export interface SesFakeOptions {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** Configuration sets that exist; a SendEmail naming another is 404 NotFoundException. */
  configurationSets?: readonly string[];
  /** GetAccount's answer (default: production access, sending enabled, 14/s). */
  account?: Record<string, unknown>;
  /** GetEmailIdentity answers by identity; others are 404. */
  identities?: Record<string, Record<string, unknown>>;
  /** GetConfigurationSetEventDestinations answers by configuration set. */
  eventDestinations?: Record<string, unknown[]>;
}

/** One request the fake read whole and whose signature verified. */
export interface ReceivedSesRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** The `herald_reference` tag value, null when absent. */
  carriedKey: string | null;
}

export interface SesFake {
  url: string;
  script(answer: SesScript): void;
  received(): ReceivedSesRequest[];
  /** SendEmail requests only. */
  sends(): ReceivedSesRequest[];
  acceptedIds(): string[];
  /** Requests refused for their signature, with the error type. */
  signatureRefusals(): string[];
  close(): Promise<void>;
}

const MAX_SKEW_MS = 5 * 60_000;
const TAG = /^[A-Za-z0-9_-]{1,256}$/;
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]{1,126}$/;
const HEADER_VALUE = /^[\x20-\x7e]{0,870}$/;
const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

class SesAnswer extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

function addressOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const angle = /<([^<>]+)>\s*$/.exec(value);
  const address = (angle ? angle[1]! : value).trim();
  return ADDRESS.test(address) ? address : null;
}

function verifySignature(req: IncomingMessage, body: Buffer, opts: SesFakeOptions): void {
  const auth = req.headers.authorization;
  if (typeof auth !== 'string') throw new SesAnswer(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
    auth,
  );
  if (!m) throw new SesAnswer(400, 'IncompleteSignatureException', 'Authorization header requires Credential, SignedHeaders and Signature.');
  const [, keyId, date, region, service, signedHeaders, signature] = m as unknown as string[];
  if (keyId !== opts.accessKeyId) throw new SesAnswer(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  const amzDate = req.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !/^\d{8}T\d{6}Z$/.test(amzDate))
    throw new SesAnswer(400, 'IncompleteSignatureException', 'Authorization requires X-Amz-Date.');
  const at = Date.UTC(
    +amzDate.slice(0, 4),
    +amzDate.slice(4, 6) - 1,
    +amzDate.slice(6, 8),
    +amzDate.slice(9, 11),
    +amzDate.slice(11, 13),
    +amzDate.slice(13, 15),
  );
  if (Math.abs(Date.now() - at) > MAX_SKEW_MS) throw new SesAnswer(403, 'InvalidSignatureException', 'Signature expired.');
  if (date !== amzDate.slice(0, 8) || region !== opts.region || service !== 'ses') {
    throw new SesAnswer(403, 'SignatureDoesNotMatch', 'Credential should be scoped to a valid region and service.');
  }
  const names = signedHeaders!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) throw new SesAnswer(403, 'SignatureDoesNotMatch', 'host and x-amz-date must be signed.');
  if (opts.sessionToken !== undefined && (req.headers['x-amz-security-token'] !== opts.sessionToken || !names.includes('x-amz-security-token'))) {
    throw new SesAnswer(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  }
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = req.headers[name];
    if (typeof value !== 'string') throw new SesAnswer(403, 'SignatureDoesNotMatch', 'A signed header is missing.');
    headers[name] = value;
  }
  const signer = new aws4.RequestSigner(
    { method: req.method, host: headers.host, path: req.url, headers, body, service: 'ses', region: opts.region, doNotModifyHeaders: true },
    { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
  );
  (signer as unknown as { datetime: string }).datetime = amzDate;
  const expected = Buffer.from(signer.signature(), 'hex');
  if (signer.signedHeaders() !== signedHeaders || !timingSafeEqual(expected, Buffer.from(signature!, 'hex'))) {
    throw new SesAnswer(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  }
}

function checkSendEmail(body: any, opts: SesFakeOptions): void {
  const bad = (message: string) => new SesAnswer(400, 'BadRequestException', message);
  if (typeof body !== 'object' || body === null) throw new SesAnswer(400, 'SerializationException', 'body is not a JSON object');
  if (addressOf(body.FromEmailAddress) === null) throw bad('Missing final @domain');
  const to = body.Destination?.ToAddresses;
  if (!Array.isArray(to) || to.length === 0 || to.length > 50 || !to.every((a: unknown) => addressOf(a) !== null))
    throw bad('Destination.ToAddresses must hold 1 to 50 addresses');
  if (body.ReplyToAddresses !== undefined && (!Array.isArray(body.ReplyToAddresses) || !body.ReplyToAddresses.every((a: unknown) => addressOf(a) !== null)))
    throw bad('ReplyToAddresses');
  const content = body.Content ?? {};
  const kinds = ['Simple', 'Raw', 'Template'].filter((k) => content[k] !== undefined);
  if (kinds.length !== 1) throw bad('Content must have exactly one of Simple, Raw or Template');
  if (content.Simple) {
    const s = content.Simple;
    if (typeof s.Subject?.Data !== 'string') throw bad('Subject is required');
    if (typeof s.Body?.Text?.Data !== 'string' && typeof s.Body?.Html?.Data !== 'string') throw bad('Body needs Text or Html');
    const headers = s.Headers ?? [];
    if (!Array.isArray(headers) || headers.length > 15) throw bad('at most 15 Headers');
    for (const h of headers) if (!HEADER_NAME.test(h?.Name) || !HEADER_VALUE.test(h?.Value)) throw bad('invalid header');
  } else if (content.Raw) {
    if (typeof content.Raw.Data !== 'string' || Buffer.from(content.Raw.Data, 'base64').length === 0) throw bad('Raw.Data must be base64');
  }
  for (const tag of body.EmailTags ?? []) if (!TAG.test(tag?.Name) || !TAG.test(tag?.Value)) throw bad('Invalid tag name or value');
  if (body.ConfigurationSetName !== undefined && !(opts.configurationSets ?? []).includes(body.ConfigurationSetName)) {
    throw new SesAnswer(404, 'NotFoundException', `Configuration set <${String(body.ConfigurationSetName)}> does not exist.`);
  }
}

function sendError(res: ServerResponse, status: number, type: string | null, message: string, typeIn: 'header' | 'type' | 'code' = 'header'): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-amzn-requestid': 'fake-request' };
  const body: Record<string, string> = { message };
  if (type !== null && typeIn === 'header') headers['x-amzn-errortype'] = `${type}:http://internal.amazon.com/coral/com.amazonaws.sesv2/`;
  if (type !== null && typeIn === 'type') body.__type = `com.amazonaws.sesv2#${type}`;
  if (type !== null && typeIn === 'code') body.code = type;
  res.writeHead(status, headers).end(JSON.stringify(body));
}

/** Starts the fake on an ephemeral port of 127.0.0.1. */
export async function startSesFake(opts: SesFakeOptions): Promise<SesFake> {
  const queue: SesScript[] = [];
  const received: ReceivedSesRequest[] = [];
  const accepted: string[] = [];
  const refusals: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let sequence = 0;

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer, answer: SesScript | undefined): void => {
    try {
      verifySignature(req, body, opts);
    } catch (error) {
      if (!(error instanceof SesAnswer)) throw error;
      refusals.push(error.type);
      sendError(res, error.status, error.type, error.message);
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    let parsed: any = null;
    try {
      parsed = body.length === 0 ? null : JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (req.method === 'POST' && path === '/v2/email/outbound-emails') {
      const tag = Array.isArray(parsed?.EmailTags) ? parsed.EmailTags.find((t: any) => t?.Name === 'herald_reference') : undefined;
      received.push({ method: 'POST', path, headers: req.headers, body: parsed, carriedKey: typeof tag?.Value === 'string' ? tag.Value : null });
      const script = answer ?? { kind: 'accept' };
      switch (script.kind) {
        case 'accept':
        case 'slow_answer': {
          try {
            if (!String(req.headers['content-type']).startsWith('application/json') || parsed === undefined)
              throw new SesAnswer(400, 'SerializationException', 'Expected a JSON body');
            checkSendEmail(parsed, opts);
          } catch (error) {
            if (!(error instanceof SesAnswer)) throw error;
            sendError(res, error.status, error.type, error.message);
            return;
          }
          const id = `010001fake${String(++sequence).padStart(6, '0')}-ses-fake-000000`;
          accepted.push(id);
          const reply = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ MessageId: id }));
          if (script.kind === 'accept') reply();
          else timers.add(setTimeout(reply, script.delayMs));
          return;
        }
        case 'permanent': {
          const to = parsed?.Destination?.ToAddresses?.[0] ?? '';
          sendError(
            res,
            400,
            'MessageRejected',
            `Email address is not verified. The following identities failed the check in region ${opts.region.toUpperCase()}: ${to}`,
          );
          return;
        }
        case 'retryable':
          sendError(res, 503, 'ServiceUnavailable', 'Service Unavailable');
          return;
        case 'throttled':
          sendError(res, 429, 'TooManyRequestsException', 'Maximum sending rate exceeded.');
          return;
        case 'error':
          sendError(res, script.status, script.type, script.message, script.typeIn);
          return;
        case 'hang':
          return;
        case 'reset_after_write':
          req.socket.resetAndDestroy();
          return;
        case 'malformed_answer':
          req.socket.end(`NOT-HTTP/9 ${script.canaries.join(' ')}\r\n\r\n`);
          return;
        default:
          throw new Error(`${script.kind} cannot apply after the request was read`);
      }
    }
    if (req.method === 'GET' && path === '/v2/email/account') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify(
          opts.account ?? {
            ProductionAccessEnabled: true,
            SendingEnabled: true,
            EnforcementStatus: 'HEALTHY',
            SendQuota: { Max24HourSend: 50000, MaxSendRate: 14, SentLast24Hours: 0 },
          },
        ),
      );
      return;
    }
    const identity = /^\/v2\/email\/identities\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && identity) {
      const found = opts.identities?.[decodeURIComponent(identity[1]!)];
      if (found) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(found));
      else sendError(res, 404, 'NotFoundException', 'Email identity does not exist.');
      return;
    }
    const destinations = /^\/v2\/email\/configuration-sets\/([^/]+)\/event-destinations$/.exec(path);
    if (req.method === 'GET' && destinations) {
      const found = opts.eventDestinations?.[decodeURIComponent(destinations[1]!)];
      if (found) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ EventDestinations: found }));
      else sendError(res, 404, 'NotFoundException', 'Configuration set does not exist.');
      return;
    }
    res.writeHead(404, { 'content-type': 'application/xml' }).end('<UnknownOperationException/>');
  };

  const server = createServer((req, res) => {
    const answer = req.method === 'POST' ? queue.shift() : undefined;
    if (answer?.kind === 'reset_while_writing') {
      // Before a byte of the body is read: the request provably never arrived whole.
      req.socket.resetAndDestroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks), answer));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let listening = true;

  return {
    url: `http://127.0.0.1:${port}`,
    script(answer) {
      if (answer.kind === 'refuse_connection') {
        // Nothing listens from now on, and no pooled connection survives to carry a request.
        listening = false;
        server.close();
        for (const s of sockets) s.destroy();
        return;
      }
      queue.push(answer);
    },
    received: () => [...received],
    sends: () => received.filter((r) => r.path === '/v2/email/outbound-emails'),
    acceptedIds: () => [...accepted],
    signatureRefusals: () => [...refusals],
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      if (listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
