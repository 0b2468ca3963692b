/**
 * A fake of Twilio's Messages API, behind the fault proxy. It speaks Twilio's wire format
 * closely enough that a request Twilio would refuse is refused the way Twilio refuses it:
 * HTTP Basic with the account SID + Auth Token or an API key SID + secret (401 20003), the
 * account in the path (404 20404), `To` in E.164 (400 21211, quoting the number as Twilio
 * does), `Body` present and at most 1,600 characters (21602 / 21617), `From` (one of the
 * account's numbers: 21606) or `MessagingServiceSid` (21603 when neither), `ValidityPeriod`
 * an integer 1-36,000 (21624), `StatusCallback` an absolute http(s) URL (21609). It answers
 * the account and IncomingPhoneNumbers look-ups `herald doctor` makes, and posts status
 * callbacks signed exactly as Twilio signs them (X-Twilio-Signature, the official SDK's
 * algorithm) to each message's StatusCallback URL.
 */
import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import type { ReceivedSubmission, ScriptedAnswer } from '../conformance/adapter-subject.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { httpRequestLength, parseHttpRequestHead } from './http-framing.js';
import { isTransportFault, scriptTransportFault, type DefiniteAnswer } from './proxy-faults.js';

const E164 = /^\+[1-9]\d{1,14}$/;

export interface TwilioFakeOptions {
  accountSid: string;
  authToken: string;
  /** An API key the fake also accepts (auth: api_key). */
  apiKey?: { sid: string; secret: string };
  /** The account's numbers (a `From` outside them is 21606). */
  numbers: readonly string[];
  /** The account's Messaging Services. */
  messagingServices?: readonly string[];
  /** `status` of the account resource (doctor). Default active. */
  accountStatus?: string;
}

export interface FakeTwilioMessage {
  sid: string;
  /** Every form parameter as received. */
  params: Record<string, string>;
  /** The Authorization user (account SID or API key SID). */
  user: string;
  receivedAt: number;
}

export interface SignedCallback {
  url: string;
  headers: Record<string, string>;
  rawBody: Buffer;
}

export interface TwilioFake {
  /** The proxy's URL: configure adapters against this. */
  url: string;
  proxy: FaultProxy;
  /** Messages the fake created, in order. */
  messages: FakeTwilioMessage[];
  /** Every Messages create that reached the fake (refused ones included), as parameters. */
  creates: Array<Record<string, string>>;
  script: (answer: ScriptedAnswer) => Promise<void>;
  received: () => Promise<ReceivedSubmission[]>;
  acceptedIds: () => Promise<string[]>;
  /** A status callback for one message, signed with `authToken` (default the account's) over its StatusCallback URL. */
  statusCallback: (sid: string, status: string, options?: { errorCode?: string; authToken?: string }) => SignedCallback;
  /** Posts that callback to its URL (or to `deliverTo`, as a proxy in front of Herald would), and answers the status. */
  postStatus: (sid: string, status: string, options?: { errorCode?: string; deliverTo?: string }) => Promise<number>;
  close: () => Promise<void>;
}

function twilioError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }));
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts the fake on an ephemeral port with the fault proxy in front of it. */
export async function startTwilioFake(options: TwilioFakeOptions): Promise<TwilioFake> {
  const messages: FakeTwilioMessage[] = [];
  const creates: Array<Record<string, string>> = [];
  const scripted: DefiniteAnswer[] = [];

  const authorized = (req: IncomingMessage): string | null => {
    const header = req.headers.authorization ?? '';
    const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header);
    if (!match) return null;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const [user, pass] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
    if (user === options.accountSid && pass === options.authToken) return user;
    if (options.apiKey && user === options.apiKey.sid && pass === options.apiKey.secret) return user;
    return null;
  };

  const answerScripted = (res: ServerResponse, answer: DefiniteAnswer, to: string): void => {
    switch (answer.kind) {
      case 'accept':
        return;
      case 'permanent':
        // Twilio quotes the number it refuses.
        twilioError(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
        return;
      case 'retryable':
        twilioError(res, 503, 20503, 'Service unavailable');
        return;
      case 'throttled': {
        const headers: Record<string, string> = {};
        if (answer.hint === 'retry_after_seconds') headers['retry-after'] = String(answer.seconds);
        if (answer.hint === 'retry_after_date') headers['retry-after'] = new Date(Date.now() + answer.seconds * 1000).toUTCString();
        twilioError(res, 429, 20429, 'Too Many Requests', headers);
        return;
      }
    }
  };

  const create = (req: IncomingMessage, res: ServerResponse, raw: Buffer, user: string): void => {
    const params: Record<string, string> = {};
    if ((req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) params[k] = v;
    }
    creates.push(params);
    const to = params.To ?? '';
    const next = scripted.shift();
    if (next !== undefined && next.kind !== 'accept') {
      answerScripted(res, next, to);
      return;
    }
    if (to === '') return twilioError(res, 400, 21604, "A 'To' phone number is required.");
    if (!E164.test(to)) return twilioError(res, 400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    const body = params.Body;
    if (body === undefined || body === '') return twilioError(res, 400, 21602, 'Message body is required.');
    if (body.length > 1600) return twilioError(res, 400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    const service = params.MessagingServiceSid;
    if (service !== undefined) {
      if (!(options.messagingServices ?? []).includes(service)) return twilioError(res, 400, 21703, 'The Messaging Service does not exist.');
    } else if (params.From === undefined || params.From === '') {
      return twilioError(res, 400, 21603, "A 'From' phone number is required.");
    } else if (!options.numbers.includes(params.From)) {
      return twilioError(
        res,
        400,
        21606,
        `The From phone number ${params.From} is not a valid, SMS-capable inbound phone number or short code for your account.`,
      );
    }
    const validity = params.ValidityPeriod;
    if (validity !== undefined && (!/^\d+$/.test(validity) || Number(validity) < 1 || Number(validity) > 36_000)) {
      return twilioError(res, 400, 21624, 'Validity period can only be set to integers between 1 and 36,000 seconds.');
    }
    const callback = params.StatusCallback;
    if (callback !== undefined) {
      let ok = false;
      try {
        ok = /^https?:$/.test(new URL(callback).protocol);
      } catch {
        ok = false;
      }
      if (!ok) return twilioError(res, 400, 21609, 'Invalid StatusCallbackUrl');
    }
    const sid = `SM${randomBytes(16).toString('hex')}`;
    messages.push({ sid, params, user, receivedAt: Date.now() });
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        sid,
        account_sid: options.accountSid,
        to,
        from: params.From ?? null,
        messaging_service_sid: service ?? null,
        body,
        status: service !== undefined ? 'accepted' : 'queued',
        num_segments: '1',
        direction: 'outbound-api',
        api_version: '2010-04-01',
        error_code: null,
        error_message: null,
        uri: `/2010-04-01/Accounts/${options.accountSid}/Messages/${sid}.json`,
      }),
    );
  };

  const server = http.createServer((req, res) => {
    void readBody(req).then((raw) => {
      const user = authorized(req);
      if (user === null) {
        res.setHeader('www-authenticate', 'Basic realm="Twilio API"');
        return twilioError(res, 401, 20003, 'Authenticate');
      }
      const url = new URL(req.url ?? '/', 'http://fake');
      const account = /^\/2010-04-01\/Accounts\/([^/]+)(\.json|\/Messages\.json|\/IncomingPhoneNumbers\.json)$/.exec(url.pathname);
      if (!account || decodeURIComponent(account[1]!) !== options.accountSid) {
        return twilioError(res, 404, 20404, 'The requested resource was not found');
      }
      const resource = account[2];
      if (resource === '/Messages.json' && req.method === 'POST') return create(req, res, raw, user);
      if (resource === '.json' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ sid: options.accountSid, status: options.accountStatus ?? 'active', type: 'Full' }));
      }
      if (resource === '/IncomingPhoneNumbers.json' && req.method === 'GET') {
        const wanted = url.searchParams.get('PhoneNumber');
        const list = options.numbers.filter((n) => wanted === null || n === wanted).map((n) => ({ phone_number: n, capabilities: { sms: true } }));
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ incoming_phone_numbers: list }));
      }
      return twilioError(res, 405, 20004, 'Method not allowed');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const proxy = await startFaultProxy({ upstream: { host: '127.0.0.1', port }, frame: httpRequestLength });

  const statusCallback: TwilioFake['statusCallback'] = (sid, status, o = {}) => {
    const message = messages.find((m) => m.sid === sid);
    if (!message) throw new Error(`the fake has no message ${sid}`);
    const url = message.params.StatusCallback;
    if (url === undefined) throw new Error(`message ${sid} asked for no StatusCallback`);
    // The parameters of an SMS status callback (Twilio: "Outbound Message Status in Status Callbacks").
    const params: Record<string, string> = {
      AccountSid: options.accountSid,
      ApiVersion: '2010-04-01',
      From: message.params.From ?? '+15005550006',
      MessageSid: sid,
      MessageStatus: status,
      SmsSid: sid,
      SmsStatus: status,
      To: message.params.To ?? '',
    };
    if (message.params.MessagingServiceSid) params.MessagingServiceSid = message.params.MessagingServiceSid;
    if (o.errorCode !== undefined) params.ErrorCode = o.errorCode;
    const signature = twilio.getExpectedTwilioSignature(o.authToken ?? options.authToken, url, params);
    return {
      url,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature,
        'user-agent': 'TwilioProxy/1.1',
        'i-twilio-idempotency-token': randomBytes(8).toString('hex'),
      },
      rawBody: Buffer.from(new URLSearchParams(params).toString()),
    };
  };

  return {
    url: proxy.url,
    proxy,
    messages,
    creates,
    async script(answer) {
      // Definite answers wait for the next send; transport faults arm the proxy.
      if (isTransportFault(answer)) scriptTransportFault(proxy, answer);
      else scripted.push(answer);
    },
    // Twilio takes no idempotency key: what travels is the request itself.
    received: async () =>
      proxy.forwarded
        .map(parseHttpRequestHead)
        .filter((head) => head.method === 'POST' && head.path.endsWith('/Messages.json'))
        .map(() => ({ carriedKey: null })),
    acceptedIds: async () => messages.map((m) => m.sid),
    statusCallback,
    async postStatus(sid, status, o = {}) {
      const signed = statusCallback(sid, status, o);
      const target = o.deliverTo === undefined ? new URL(signed.url) : new URL(new URL(signed.url).pathname + new URL(signed.url).search, o.deliverTo);
      const res = await fetch(target, { method: 'POST', headers: signed.headers, body: signed.rawBody });
      await res.body?.cancel();
      return res.status;
    },
    async close() {
      try {
        await proxy.close();
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
