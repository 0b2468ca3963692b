/**
 * web/src/api-types.ts is generated from the OpenAPI document (`npm run api:types`); a route
 * schema changed without regenerating it leaves the dashboard typed against an old contract.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_PATH, renderApiTypes } from '../../scripts/api-types.js';

describe('web/src/api-types.ts', () => {
  it('is what `npm run api:types` writes from the current OpenAPI document', async () => {
    const committed = readFileSync(API_TYPES_PATH, 'utf8');
    expect(committed === (await renderApiTypes()), 'web/src/api-types.ts is stale: run `npm run api:types`').toBe(true);
  });

  it('names the shared answers, with the delivery states as a closed set', () => {
    const text = readFileSync(API_TYPES_PATH, 'utf8');
    for (const name of ['Attempt', 'Delivery', 'DeliveryListItem', 'DeliveryPage', 'DeliveryDetail', 'NotificationDetail'])
      expect(text).toContain(`    ${name}: {`);
    expect(text).toContain("state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';");
  });
});
