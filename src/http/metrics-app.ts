/**
 * `buildMetricsApp(deps)`: a Fastify app with GET /metrics and nothing else, for a process
 * without the API (`herald worker --metrics-port N`), so a worker's own counters can be scraped.
 * Errors are the same problem documents as the API's. Does not listen.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { installProblemHandlers } from './problem-handler.js';
import { metricsRoutes, type MetricsRouteDeps } from './routes/metrics.js';

/** Builds the metrics-only app; does not listen. */
export async function buildMetricsApp(deps: MetricsRouteDeps): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  installProblemHandlers(app);
  metricsRoutes(app, deps);
  await app.ready();
  return app;
}
