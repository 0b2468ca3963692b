/**
 * web/src/api-types.ts and packages/client/src/api-types.ts are generated from the OpenAPI
 * document (`npm run api:types`); a route schema changed without regenerating them leaves the
 * dashboard and @herald/client typed against an old contract.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_PATHS, renderApiTypes } from '../../scripts/api-types.js';

const [WEB_TYPES] = API_TYPES_PATHS;

describe('the generated API types (web/src, packages/client/src)', () => {
  it('are what `npm run api:types` writes from the current OpenAPI document', async () => {
    const fresh = await renderApiTypes();
    expect(API_TYPES_PATHS.map((p) => p.replace(/^.*\/(web|packages)\//, '$1/'))).toEqual(['web/src/api-types.ts', 'packages/client/src/api-types.ts']);
    for (const path of API_TYPES_PATHS) expect(readFileSync(path, 'utf8') === fresh, `${path} is stale: run \`npm run api:types\``).toBe(true);
  });

  it('names the shared answers, with the delivery states as a closed set', () => {
    const text = readFileSync(WEB_TYPES!, 'utf8');
    for (const name of ['Attempt', 'Delivery', 'DeliveryListItem', 'DeliveryPage', 'DeliveryDetail', 'NotificationDetail'])
      expect(text).toContain(`    ${name}: {`);
    expect(text).toContain("state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';");
  });
});
