/**
 * GET /dashboard serves the built web app from its folder (injected here; dist/web in a real
 * run): index.html for every page of the app, files by their path, the strict CSP and
 * security headers on every answer, index.html never cached and hashed assets cached for a
 * year; without a build, 503 dashboard_not_built saying to run `npm run build`. GET / redirects
 * to the dashboard (issue 23), and is not there when the dashboard is off.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP } from '../../src/http/routes/dashboard.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const INDEX = '<!doctype html><title>Herald</title><script type="module" src="/dashboard/assets/index-3f9a1c.js"></script>';

describe('the dashboard’s static files', () => {
  let h: Harness;
  let root: string;
  afterEach(async () => {
    await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  function built(): string {
    root = mkdtempSync(join(tmpdir(), 'herald-web-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), INDEX);
    writeFileSync(join(root, 'assets/index-3f9a1c.js'), 'console.log("herald")');
    writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    return root;
  }

  const get = (url: string) => h.app.inject({ method: 'GET', url });

  it('serves index.html for /dashboard and every deep link, with the CSP and no caching', async () => {
    h = await createHarness({ dashboard: { webRoot: built() } });
    for (const url of ['/dashboard', '/dashboard/', '/dashboard/messages', '/dashboard/messages/dlv_01JD?state=terminal', '/dashboard/devices/dev-1']) {
      const r = await get(url);
      expect(r.statusCode, url).toBe(200);
      expect(r.body, url).toBe(INDEX);
      expect(r.headers['content-type'], url).toMatch(/^text\/html/);
      expect(r.headers['cache-control'], url).toBe('no-store');
      expect(r.headers['content-security-policy'], url).toBe(DASHBOARD_CSP);
      expect(r.headers['x-content-type-options'], url).toBe('nosniff');
      expect(r.headers['referrer-policy'], url).toBe('no-referrer');
    }
    expect(DASHBOARD_CSP).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
  });

  it('leads GET / to the dashboard with a redirect a browser does not keep, and the dashboard answers there', async () => {
    h = await createHarness({ dashboard: { webRoot: built() } });
    for (const method of ['GET', 'HEAD'] as const) {
      const r = await h.app.inject({ method, url: '/' });
      expect(r.statusCode, method).toBe(302);
      expect(r.headers.location, method).toBe('/dashboard/');
    }
    const landed = await get('/dashboard/');
    expect(landed.statusCode).toBe(200);
    expect(landed.body).toBe(INDEX);
    // The API's answers are what they were.
    expect((await get('/healthz')).json()).toMatchObject({ status: 'ok' });
    expect((await get('/v1/stats')).statusCode).toBe(401);
  });

  it('has no GET / when the dashboard is off', async () => {
    root = mkdtempSync(join(tmpdir(), 'herald-web-'));
    h = await createHarness({ dashboard: null });
    const r = await get('/');
    expect(r.statusCode).toBe(404);
    expect(r.json().code).toBe('not_found');
  });

  it('serves files by path: hashed assets cached for a year, others revalidated; a missing file is a 404 problem', async () => {
    h = await createHarness({ dashboard: { webRoot: built() } });
    const js = await get('/dashboard/assets/index-3f9a1c.js');
    expect(js.statusCode).toBe(200);
    expect(js.body).toBe('console.log("herald")');
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    const icon = await get('/dashboard/favicon.svg');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
    const missing = await get('/dashboard/assets/gone-000.js');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('not_found');
    // Nothing outside the folder, however the path is spelled.
    for (const url of [
      '/dashboard/../package.json',
      '/dashboard/%2e%2e/package.json',
      '/dashboard/assets/%2e%2e/%2e%2e/package.json',
      '/dashboard/.env.json',
    ]) {
      const r = await get(url);
      expect(r.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(r.body, url).not.toContain('"name": "herald"');
    }
  });

  it('answers 503 dashboard_not_built, saying to run npm run build, when the folder has no index.html', async () => {
    root = mkdtempSync(join(tmpdir(), 'herald-web-'));
    h = await createHarness({ dashboard: { webRoot: join(root, 'missing') } });
    for (const url of ['/dashboard', '/dashboard/messages', '/dashboard/assets/index-3f9a1c.js']) {
      const r = await get(url);
      expect(r.statusCode, url).toBe(503);
      expect(r.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect(r.json(), url).toMatchObject({ code: 'dashboard_not_built', detail: expect.stringContaining('npm run build') });
    }
  });

  it('is absent when the dashboard is turned off', async () => {
    root = built();
    h = await createHarness({ dashboard: null });
    expect((await get('/dashboard')).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'POST', url: '/v1/session', payload: { api_key: h.apiKey } })).statusCode).toBe(404);
  });
});
