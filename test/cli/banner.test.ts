/**
 * The banner `herald start` and `herald api` print (issue 23): the dashboard's URL comes first,
 * with the API's, when the process serves the API and the dashboard is on; a worker or a
 * dashboard turned off prints none. The processes' own banners are checked end to end in
 * start.test.ts (herald start) and metrics-scrape.test.ts (herald api).
 */
import { describe, expect, it } from 'vitest';
import { bannerLines } from '../../src/cli/commands/banner.js';
import { resolveConfig } from '../../src/config/config.js';

const API = 'http://127.0.0.1:8080';

describe('the banner', () => {
  it('names the dashboard, and that / leads there, above the API for herald start and herald api', () => {
    for (const roles of [['api', 'worker'], ['api']] as const) {
      const lines = bannerLines({ config: resolveConfig({}), roles: [...roles], apiUrl: API, sandboxUrl: null, bootstrap: null });
      expect(lines[1], roles.join('+')).toBe(`  Dashboard:    ${API}/dashboard/   (sign in with an API key; ${API}/ leads there too)`);
      expect(lines[2], roles.join('+')).toBe(`  API:          ${API}   (OpenAPI: ${API}/openapi.json)`);
    }
  });

  it('names no dashboard where there is none: a worker, or the dashboard turned off', () => {
    const worker = bannerLines({ config: resolveConfig({}), roles: ['worker'], apiUrl: null, sandboxUrl: null, bootstrap: null });
    expect(worker.join('\n')).not.toMatch(/Dashboard/);
    const off = bannerLines({ config: resolveConfig({ dashboard: { enabled: false } }), roles: ['api'], apiUrl: API, sandboxUrl: null, bootstrap: null });
    expect(off.join('\n')).not.toMatch(/Dashboard/);
    expect(off).toContain(`  API:          ${API}   (OpenAPI: ${API}/openapi.json)`);
  });
});
