// Writes web/src/api-types.ts from the OpenAPI document (scripts/api-types.ts). `npm run api:types`
// after changing a route's schema; test/http/api-types.test.ts fails while the file is stale.
import { writeFileSync } from 'node:fs';
import { API_TYPES_PATH, renderApiTypes } from './api-types.js';

writeFileSync(API_TYPES_PATH, await renderApiTypes());
console.log(`wrote ${API_TYPES_PATH}`);
