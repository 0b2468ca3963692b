// Writes web/src/api-types.ts and packages/client/src/api-types.ts from the OpenAPI document (scripts/api-types.ts). `npm run api:types`
// after changing a route's schema; test/http/api-types.test.ts fails while the file is stale.
import { writeFileSync } from 'node:fs';
import { API_TYPES_PATHS, renderApiTypes } from './api-types.js';

const text = await renderApiTypes();
for (const path of API_TYPES_PATHS) {
  writeFileSync(path, text);
  console.log(`wrote ${path}`);
}
