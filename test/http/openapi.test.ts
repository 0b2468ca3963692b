/**
 * The published contract: /openapi.json is an OpenAPI 3.1 document naming every public
 * route, with the strict request schema the server enforces; /healthz answers without a key.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { notificationRequestSchema } from '../../src/intake/notification-request.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

async function openapi(): Promise<any> {
  const r = await h.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(r.statusCode).toBe(200);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  return r.json();
}

/** Every `$ref` string anywhere in a JSON value. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe('/openapi.json', () => {
  it('is an OpenAPI 3.1 document with info and bearer security', async () => {
    const doc = await openapi();
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearer: [] }]);
  });

  it('has the public paths with OpenAPI-style path parameters, and hides /healthz and /openapi.json', async () => {
    const doc = await openapi();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/notifications',
        '/v1/notifications/{id}',
        '/v1/notifications/{id}/resend',
        '/v1/deliveries',
        '/v1/deliveries/{id}',
        '/v1/deliveries/{id}/retry',
        '/v1/deliveries/retry',
        '/v1/review',
      ]),
    );
    expect(doc.paths['/v1/review'].get).toBeDefined();
    expect(doc.paths['/v1/deliveries/{id}/retry'].post).toBeDefined();
    expect(doc.paths['/v1/deliveries/retry'].post.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(doc.paths['/v1/notifications/{id}/resend'].post.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false })]),
    );
    expect(doc.paths['/v1/notifications'].post).toBeDefined();
    expect(doc.paths['/v1/notifications/{id}'].get.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'path', name: 'id', required: true })]),
    );
    expect(doc.paths['/v1/deliveries'].get).toBeDefined();
    expect(doc.paths['/v1/deliveries/{id}'].get).toBeDefined();
    for (const p of Object.keys(doc.paths)) expect(p).not.toContain(':');
    expect(doc.paths['/healthz']).toBeUndefined();
    expect(doc.paths['/openapi.json']).toBeUndefined();
  });

  it('the notification request schema is strict: additionalProperties false at every object level', async () => {
    const doc = await openapi();
    const schema = doc.paths['/v1/notifications'].post.requestBody.content['application/json'].schema;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(expect.arrayContaining(['recipient', 'purpose', 'channels']));
    for (const nested of ['recipient', 'content', 'template', 'group']) {
      expect(schema.properties[nested].additionalProperties, nested).toBe(false);
    }
    // What is published is what is enforced.
    expect(schema).toEqual(JSON.parse(JSON.stringify(notificationRequestSchema)));
  });

  it('documents the Idempotency-Key header and the list filters', async () => {
    const doc = await openapi();
    const postParams = doc.paths['/v1/notifications'].post.parameters;
    expect(postParams).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false })]));
    const listParams = doc.paths['/v1/deliveries'].get.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`);
    expect(listParams.sort()).toEqual(
      [
        'channel',
        'cursor',
        'limit',
        'purpose',
        'state',
        'terminal_reason',
        'downstream_status',
        'provider_account',
        'device',
        'campaign',
        'since',
        'until',
        'q',
        'failed',
      ]
        .map((name) => `query:${name}`)
        .sort(),
    );
  });

  it('error responses reference the problem schema, whose code enum is the error registry', async () => {
    const doc = await openapi();
    const post = doc.paths['/v1/notifications'].post;
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['400', '401', '409', '413', '415', '422']));
    for (const ref of refs(doc)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined();
    }
    // Shared schemas are named by their $id (app.ts refResolver).
    const problem = doc.components.schemas.problem;
    expect(problem.properties.code.enum.sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });
});

describe('/healthz', () => {
  it('answers 200 with the store driver', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/healthz' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'ok', driver: 'sqlite' });
  });

  it('unknown routes are 404 problem documents, not HTML', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/nope?x=1' });
    expect(r.statusCode).toBe(404);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.json()).toMatchObject({ code: 'not_found', status: 404, instance: '/nope' });
  });
});
