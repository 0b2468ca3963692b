/**
 * GET /metrics: the Prometheus exposition (src/observability/system-metrics.ts), outside /v1
 * and outside the API-key scope, since a scraper is not a tenant. With a token configured
 * (config `metrics.token` / `metrics.token_env`) the scrape must send `Authorization: Bearer
 * <token>`; without one the route is open, as Prometheus endpoints usually are behind a network
 * boundary. The series carry no personal data either way (docs/operations.md, "Metrics").
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HeraldError } from '../../errors.js';

/** What the route serves: SystemMetrics, declared here so http/ does not import observability/. */
export interface MetricsExposition {
  readonly contentType: string;
  render(): Promise<string>;
}

export interface MetricsRouteDeps {
  metrics: MetricsExposition;
  /** When set, required as a bearer token. */
  token?: string | null;
}

const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] (\S{1,512})$/;

/** Compares digests, so neither the token's length nor its prefix shows in the timing. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Registers GET /metrics. */
export function metricsRoutes(app: FastifyInstance, deps: MetricsRouteDeps): void {
  const token = deps.token ?? null;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token !== null) {
      const m = BEARER.exec(request.headers.authorization ?? '');
      if (!m || !sameToken(m[1]!, token)) throw new HeraldError('unauthorized', 'the metrics token is required: Authorization: Bearer <token>');
    }
    const body = await deps.metrics.render();
    return reply.type(deps.metrics.contentType).send(body);
  });
}
