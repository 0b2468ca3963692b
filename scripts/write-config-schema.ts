// Writes src/config/herald-config.schema.json, the published configuration schema, from its one
// source (src/config/config-schema.ts). `npm run config:schema` after changing a setting;
// test/config/config.test.ts fails while the file is stale.
import { writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { CONFIG_SCHEMA_PATH } from '../src/config/config.js';
import { publishedConfigSchema } from '../src/config/config-schema.js';

const target = CONFIG_SCHEMA_PATH;
const options = (await resolveConfig(target)) ?? {};
writeFileSync(target, await format(JSON.stringify(publishedConfigSchema()), { ...options, filepath: target }));
console.log(`wrote ${target}`);
