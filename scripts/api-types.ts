/**
 * The dashboard's API types, generated from the OpenAPI document Herald serves (openapi-typescript):
 * `renderApiTypes()` builds an app as the tests do (SQLite, every optional route group on: the
 * dashboard, the device API), reads GET /openapi.json and renders it as TypeScript, formatted
 * like the rest of web/. `npm run api:types` writes it to web/src and to packages/client/src
 * (scripts/write-api-types.ts); test/http/api-types.test.ts fails while either committed file is stale.
 */
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { createHarness } from '../test/helpers/harness.js';

/** Where the generated types live: the dashboard's, and @herald/client's (the same text, each package self-contained). */
export const API_TYPES_PATHS = [
  fileURLToPath(new URL('../web/src/api-types.ts', import.meta.url)),
  fileURLToPath(new URL('../packages/client/src/api-types.ts', import.meta.url)),
];

const HEADER = `/**
 * Generated from Herald's OpenAPI document (GET /openapi.json) by \`npm run api:types\`
 * (scripts/api-types.ts, openapi-typescript). Do not edit: change the route's schema in
 * src/http/ and regenerate (npm run api:types); test/http/api-types.test.ts fails while this file is stale.
 */
`;

/** Herald's OpenAPI document as the server publishes it. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const h = await createHarness({ driver: 'sqlite', devices: {} });
  try {
    const r = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    if (r.statusCode !== 200) throw new Error(`GET /openapi.json answered ${r.statusCode}`);
    // The version in info follows the package; the types do not depend on it.
    const doc = r.json<Record<string, unknown>>();
    return { ...doc, info: { ...(doc.info as object), version: 'generated' } };
  } finally {
    await h.close();
  }
}

/** The generated files' text (one text for every path in API_TYPES_PATHS). */
export async function renderApiTypes(): Promise<string> {
  const ast = await openapiTS((await openApiDocument()) as never);
  const path = API_TYPES_PATHS[0]!;
  const options = (await resolveConfig(path)) ?? {};
  return format(HEADER + astToString(ast), { ...options, filepath: path });
}
