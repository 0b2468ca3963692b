/**
 * GET / leads a person who opens the API's address to the dashboard (302 to /dashboard/); the
 * `herald start` and `herald api` banners name both. The API's own answers are unchanged.
 *
 * GET /dashboard and /dashboard/*: the built web app (`npm run build` writes it to dist/web/),
 * served with @fastify/static. A path without a file extension is a page of the app and gets
 * index.html, so a bookmarked deep link works; a path with one is a file (404 when absent).
 * Every answer carries the strict Content-Security-Policy below; index.html is never cached,
 * the hashed files under assets/ are cached for a year. Without a build the answer is 503
 * `dashboard_not_built`, which says how to build it.
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HeraldError } from '../../errors.js';

/** dist/web of this checkout: three levels up from src/http/routes (tsx) and from dist/http/routes (built) alike. */
export const DEFAULT_WEB_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..', 'dist/web');

/**
 * Nothing from anywhere but Herald itself, no inline script or style, no framing (clickjacking
 * of the retry buttons), no <base> rewriting, forms post only here. `data:` images for the
 * charts' exported PNGs and inline SVG icons.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Vite's hashed output: the name changes with the content, so a year is safe. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface DashboardRouteDeps {
  /** The built app's folder (default dist/web); tests point it at a folder of their own. */
  webRoot?: string;
}

/** Registers the dashboard's static routes in their own scope. */
export async function dashboardRoutes(app: FastifyInstance, deps: DashboardRouteDeps): Promise<void> {
  const root = resolve(deps.webRoot ?? DEFAULT_WEB_ROOT);
  await app.register(async (scope) => {
    // serve: false: our two routes decide what is a page and what is a file; the plugin sends files.
    await scope.register(fastifyStatic, { root, serve: false });
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', DASHBOARD_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-frame-options', 'DENY');
    });

    const sendIndex = (reply: FastifyReply) => {
      if (!existsSync(join(root, 'index.html')))
        throw new HeraldError('dashboard_not_built', `the dashboard is not built (no ${join(root, 'index.html')}): run \`npm run build\``);
      return reply.header('cache-control', 'no-store').sendFile('index.html', root, { cacheControl: false });
    };

    // 302, not 301: a browser must not remember it, should `/` answer something else one day.
    scope.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/dashboard/', 302));
    scope.get('/dashboard', { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));
    scope.get<{ Params: { '*': string } }>('/dashboard/*', { schema: { hide: true } }, async (request, reply) => {
      const path = request.params['*'];
      const last = path.split('/').pop() ?? '';
      // A page of the app (no extension): index.html, and the app's router reads the URL.
      if (!/\.[A-Za-z0-9]+$/.test(last)) return sendIndex(reply);
      if (path.split('/').some((part) => part === '..' || part.startsWith('.'))) throw new HeraldError('not_found', `no file ${request.url.split('?')[0]}`);
      if (!existsSync(join(root, 'index.html')))
        throw new HeraldError('dashboard_not_built', `the dashboard is not built (no ${join(root, 'index.html')}): run \`npm run build\``);
      if (path === 'index.html') return sendIndex(reply);
      reply.header('cache-control', path.startsWith('assets/') ? IMMUTABLE : 'no-cache');
      return reply.sendFile(path, root, { cacheControl: false });
    });
  });
}
