/**
 * @herald/client: Herald's HTTP API as a typed fetch client. The types in ./api-types.ts are
 * generated from the OpenAPI document Herald serves (`npm run api:types` in the Herald repo;
 * a test there fails while they are stale), and openapi-fetch turns them into calls whose
 * paths, parameters, bodies, answers and problem+json errors are all checked by the compiler.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './api-types.js';

export type { components, paths } from './api-types.js';

/** An RFC 9457 problem as Herald answers every error, `code` one of its stable error codes. */
export type Problem = components['schemas']['problem'];

/** The typed client: `GET`, `POST`, `PUT`, `PATCH`, `DELETE` by path, each answering `{ data, error, response }`. */
export type HeraldClient = Client<paths>;

export interface HeraldClientOptions {
  /** Where Herald's API listens, e.g. `http://localhost:8080` (no trailing `/v1`: the paths carry it). */
  baseUrl: string;
  /** A tenant API key (`herald keys create`), sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** A fetch of your own (a proxy, a test double); the global fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** A client that sends the API key with every request; nothing is sent until a method is called. */
export function createHeraldClient(options: HeraldClientOptions): HeraldClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
