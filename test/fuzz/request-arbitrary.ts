/**
 * Requests for one route of the route table, generated and mutated: a body valid against the
 * route's schema (or a hand-written seed) changed field by field, random JSON, wrong types,
 * huge strings, deep nesting, bytes that are not JSON; content types, charsets, encodings and
 * credentials; path parameters that are real ids, garbage, traversal and broken encodings.
 */
import fc from 'fast-check';
import { paramsOf, type RouteEntry } from './route-table.js';
import { valueFor } from './schema-arbitrary.js';

export interface FuzzRequest {
  /** The route pattern it was made for. */
  route: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** What was done to it, for the failure message. */
  what: string;
}

/** Credentials and ids the setup made, so a share of requests is authorised and names real things. */
export interface FuzzContext {
  apiKey: string;
  sessionCookie: string;
  csrfToken: string;
  deviceToken: string;
  phoneToken: string;
  /** Real ids by parameter name (`id`, `providerAccountId`, ...), any of which a route may get. */
  ids: string[];
  /** Callback secrets per provider account: callbacks are signed with their own, or another's. */
  callbackSecrets: Record<string, string[]>;
  /** Hand-written valid bodies by `METHOD url`, beside the schema's. */
  seeds: Record<string, unknown[]>;
  /** Signs a callback body as the sandbox would (Standard Webhooks). */
  sign(secrets: string[], body: Buffer): Record<string, string>;
  deviceBasePath: string;
}

const HUGE = 300 * 1024;

/** Path segments that are not ids: traversal, encodings, control bytes, length. */
const hostileSegments = [
  '..',
  '..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f%2e%2e%2f',
  '%252e%252e%252f',
  '..%5c..%5cwindows',
  '%00',
  'a%00b',
  '%ff%fe',
  '%',
  '%zz',
  '%c0%ae%c0%ae%2f',
  'a%2Fb',
  '%20',
  '%E2%80%AE',
  encodeURIComponent('😀'),
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent('<script>alert(1)</script>'),
  'x'.repeat(1599),
  'x'.repeat(1601),
  'x'.repeat(5000),
  '-1',
  '0',
  '9'.repeat(40),
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '.',
  '~',
];

const contentTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset="utf-8"; boundary=x',
  'APPLICATION/JSON',
  'application/problem+json',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'application/x-ndjson',
  'text/csv',
  'text/csv; charset=utf-8',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  'application/xml',
  '*/*',
  'application/',
  ';;;',
  'json',
  '',
];

const encodings = ['gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip', 'chunked'];

/** Any JSON, including the shapes that break naive code. */
const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, 0, -1, 1e308, -0, '', ' ', true, [], {}, [null], { '': '' }, 'a\u0000b', '\u202e', '\ud800', { 'k\u0000': 1 }),
  },
  { weight: 1, arbitrary: fc.constant('x'.repeat(HUGE)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 400 }).map(nest) },
  { weight: 1, arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, 2 ** 63, -(2 ** 63), 1.5, 1e-320) },
);

function nest(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

type Path = (string | number)[];

/** Every path into a JSON value (objects' keys, arrays' indexes). */
function pathsOf(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (v && typeof v === 'object') {
    for (const [k, child] of Object.entries(v)) {
      const p = [...prefix, Array.isArray(v) ? Number(k) : k];
      out.push(p);
      if (out.length < 200) pathsOf(child, p, out);
    }
  }
  return out;
}

function setAt(root: unknown, path: Path, value: unknown, remove = false): unknown {
  const copy = structuredClone(root) as any;
  if (path.length === 0) return value;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  const last = path[path.length - 1]!;
  if (remove) {
    if (Array.isArray(at)) at.splice(Number(last), 1);
    else delete at[last];
  } else at[last] = value;
  return copy;
}

/** One change to a valid body: a field removed, retyped, made huge or deep, or a field added. */
function mutate(valid: unknown): fc.Arbitrary<{ body: unknown; what: string }> {
  const paths = pathsOf(valid);
  const at = paths.length ? fc.constantFrom(...paths) : fc.constant([] as Path);
  return fc.oneof(
    fc.tuple(at, jsonish).map(([p, v]) => ({ body: setAt(valid, p, v), what: `set ${p.join('.')}` })),
    at.map((p) => ({ body: setAt(valid, p, undefined, true), what: `removed ${p.join('.')}` })),
    at.map((p) => ({ body: setAt(valid, p, 'x'.repeat(HUGE)), what: `huge ${p.join('.')}` })),
    fc.tuple(at, fc.integer({ min: 10, max: 2000 })).map(([p, n]) => ({ body: setAt(valid, p, nest(n)), what: `nested ${n} at ${p.join('.')}` })),
    fc.tuple(fc.constantFrom('unknown_field', '__proto__', 'constructor', 'prototype', 'tenant_id', 'id', ''), jsonish).map(([k, v]) => ({
      body: valid && typeof valid === 'object' && !Array.isArray(valid) ? { ...valid, [k]: v } : valid,
      what: `added ${k}`,
    })),
    fc.constant({ body: valid, what: 'valid' }),
    fc.constant({ body: valid, what: 'valid' }),
  );
}

/** The raw bytes of a body: JSON, or something that is not quite. */
function serialise(body: unknown): fc.Arbitrary<{ payload: string | Buffer; what: string }> {
  const json = JSON.stringify(body) ?? 'null';
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant({ payload: json, what: '' }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: Math.max(0, json.length - 1) }).map((n) => ({ payload: json.slice(0, n), what: ' truncated' })) },
    { weight: 1, arbitrary: fc.constant({ payload: json.replace(/^\{/, '{"__proto__":{"polluted":1},'), what: ' __proto__ key' }) },
    { weight: 1, arbitrary: fc.constant({ payload: `\uFEFF${json}`, what: ' BOM' }) },
    { weight: 1, arbitrary: fc.constant({ payload: Buffer.from(json, 'utf16le'), what: ' utf-16' }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ payload: Buffer.from(b), what: ' random bytes' })) },
    { weight: 1, arbitrary: fc.constant({ payload: `${json}${json}`, what: ' doubled' }) },
    { weight: 1, arbitrary: fc.constant({ payload: '', what: ' empty' }) },
    { weight: 1, arbitrary: fc.constant({ payload: Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3]), what: ' gzip magic' }) },
  );
}

function credentials(ctx: FuzzContext, route: RouteEntry, streaming: boolean): fc.Arbitrary<{ headers: Record<string, string>; what: string }> {
  const bad: { headers: Record<string, string>; what: string }[] = [
    { headers: {}, what: 'no auth' },
    { headers: { authorization: 'Bearer hk_wrong' }, what: 'wrong key' },
    { headers: { authorization: `Bearer ${ctx.apiKey}x` }, what: 'key + x' },
    { headers: { authorization: 'Bearer ' }, what: 'empty bearer' },
    { headers: { authorization: `Basic ${Buffer.from(`a:${ctx.apiKey}`).toString('base64')}` }, what: 'basic' },
    { headers: { authorization: `bearer ${ctx.apiKey.toUpperCase()}` }, what: 'upper key' },
    { headers: { authorization: `Bearer ${'k'.repeat(8000)}` }, what: 'long bearer' },
    { headers: { cookie: 'herald_session=forged' }, what: 'forged cookie' },
    { headers: { cookie: `herald_session=${ctx.sessionCookie}` }, what: 'cookie, no csrf' },
    { headers: { cookie: `herald_session=${ctx.sessionCookie}`, 'x-csrf-token': 'wrong' }, what: 'cookie, wrong csrf' },
  ];
  const good: { headers: Record<string, string>; what: string }[] = route.url.startsWith(ctx.deviceBasePath)
    ? [
        { headers: { authorization: `Bearer ${ctx.deviceToken}` }, what: 'device token' },
        { headers: { authorization: `Bearer ${ctx.phoneToken}` }, what: 'private token' },
      ]
    : route.url.startsWith('/3rdparty/')
      ? [
          { headers: { authorization: `Basic ${Buffer.from(`herald:${ctx.apiKey}`).toString('base64')}` }, what: 'basic api key' },
          { headers: { authorization: `Basic ${Buffer.from(`herald:${ctx.phoneToken}`).toString('base64')}` }, what: 'basic private token' },
        ]
      : [
          { headers: { authorization: `Bearer ${ctx.apiKey}` }, what: 'api key' },
          { headers: { cookie: `herald_session=${ctx.sessionCookie}`, 'x-csrf-token': ctx.csrfToken }, what: 'session' },
        ];
  // Signing out with the shared session would leave the rest of the run without one.
  const usable = route.method === 'DELETE' && route.url === '/v1/session' ? good.filter((g) => !g.headers.cookie) : good;
  // A stream with good credentials never ends, so inject would wait for ever: streams get bad ones.
  if (streaming) return fc.constantFrom(...bad.filter((b) => !b.headers.cookie?.includes(ctx.sessionCookie)));
  return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...usable) }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
}

function segment(ctx: FuzzContext): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...ctx.ids) },
    { weight: 2, arbitrary: fc.constantFrom(...hostileSegments) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom(...ctx.ids).map((id) => encodeURIComponent(id).replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)) },
  );
}

function query(route: RouteEntry): fc.Arbitrary<string> {
  const names = [...route.query, 'limit', 'cursor', '__proto__', 'x'];
  const value = fc.oneof(
    fc.constantFrom('', '-1', '0', '1', '1001', 'abc', '%ff', '2026-13-40', 'null', '1e9', 'x'.repeat(3000), 'eyJ9', '%00'),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
  );
  return fc
    .array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 3 })
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));
}

/** Whether a route's answer is a stream that stays open (SSE). */
export function isStream(route: RouteEntry, deviceBasePath: string): boolean {
  return route.url === '/v1/events/stream' || route.url === `${deviceBasePath}/events`;
}

/** Generated requests for one route. */
export function requestsFor(route: RouteEntry, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const streaming = isStream(route, ctx.deviceBasePath);
  const names = paramsOf(route.url);
  const url = fc.tuple(fc.array(segment(ctx), { minLength: names.length, maxLength: names.length }), query(route)).map(([values, q]) => {
    let i = 0;
    return route.url.replace(/:([A-Za-z0-9_]+)|\*/g, () => values[i++]!) + q;
  });
  const hasBody = !['GET', 'HEAD', 'DELETE'].includes(route.method) || route.bodySchema !== undefined;
  const valid: fc.Arbitrary<unknown> = fc.oneof(
    ...(ctx.seeds[`${route.method} ${route.url}`]?.length ? [{ weight: 3, arbitrary: fc.constantFrom(...ctx.seeds[`${route.method} ${route.url}`]!) }] : []),
    { weight: 2, arbitrary: route.bodySchema ? valueFor(route.bodySchema) : jsonish },
  );
  const body = fc.oneof({ weight: 6, arbitrary: valid.chain(mutate) }, { weight: 1, arbitrary: jsonish.map((b) => ({ body: b, what: 'random json' })) });
  const mediaType = fc.oneof({ weight: 6, arbitrary: fc.constant(route.mediaTypes[0]!) }, { weight: 2, arbitrary: fc.constantFrom(...contentTypes) });
  const extra = fc.record(
    {
      'content-encoding': fc.constantFrom(...encodings),
      'idempotency-key': fc.oneof(
        fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
        fc.uuid(),
      ),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
      'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage', '::1, 10.0.0.1'),
      'last-event-id': fc.constantFrom('0', '-1', 'abc', '9'.repeat(30)),
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      url,
      auth: credentials(ctx, route, streaming),
      body: hasBody ? body.chain((b) => serialise(b.body).map((s) => ({ ...s, what: `${b.what}${s.what}` }))) : fc.constant(null),
      mediaType,
      extra,
    })
    .chain((r) => {
      const headers: Record<string, string> = { ...r.auth.headers, ...(r.extra as Record<string, string>) };
      if (r.body) headers['content-type'] = r.mediaType;
      const base = {
        route: route.url,
        method: route.method,
        url: r.url,
        headers,
        what: `${r.auth.what}; ${r.body?.what ?? 'no body'}; ${r.body ? r.mediaType : ''}`,
      };
      if (!r.body) return fc.constant({ ...base });
      const payload = r.body.payload;
      // Callbacks are signed with the route's own account's secrets, another account's, or none.
      if (route.url === '/v1/callbacks/:providerAccountId') {
        const accounts = Object.keys(ctx.callbackSecrets);
        const segment = r.url.split('/')[3]!.split('?')[0]!;
        let own = segment;
        try {
          own = decodeURIComponent(segment);
        } catch {
          // A broken encoding names no account: signed with none of its own.
        }
        return fc.constantFrom('own', 'other', 'none').map((how): FuzzRequest => {
          const secrets =
            how === 'own'
              ? Object.hasOwn(ctx.callbackSecrets, own)
                ? ctx.callbackSecrets[own]
                : undefined
              : how === 'other'
                ? ctx.callbackSecrets[accounts.find((a) => a !== own) ?? accounts[0]!]
                : undefined;
          const signed = secrets ? ctx.sign(secrets, Buffer.from(payload)) : {};
          return { ...base, headers: { ...headers, ...signed }, payload, what: `${base.what}; signed ${how}` };
        });
      }
      return fc.constant({ ...base, payload });
    });
}
