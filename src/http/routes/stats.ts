/** GET /v1/stats/counters: the process's delivery counters, read-only. */
import type { FastifyInstance } from 'fastify';
import { CHANNELS, PURPOSES } from '../../domain/index.js';
import { COUNTER_NAMES, type DeliveryCounters } from '../../metrics/counters.js';

const problemRef = { $ref: 'problem#' };

/** Registers the stats routes on an authenticated scope. */
export function statsRoutes(app: FastifyInstance, deps: { counters?: DeliveryCounters }): void {
  app.get(
    '/v1/stats/counters',
    {
      schema: {
        summary: "This process's delivery counters",
        description:
          'Every non-zero counter, per channel and purpose, since this process started. Counters are per process and ' +
          'across all tenants: with several processes, each answers with its own counts; a restart starts from zero.',
        tags: ['stats'],
        response: {
          200: {
            type: 'object',
            properties: {
              counters: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    name: { type: 'string', enum: [...COUNTER_NAMES] },
                    channel: { type: 'string', enum: [...CHANNELS] },
                    purpose: { type: 'string', enum: [...PURPOSES] },
                    value: { type: 'integer' },
                  },
                },
              },
            },
          },
          401: problemRef,
        },
      },
    },
    async () => ({ counters: deps.counters?.snapshot() ?? [] }),
  );
}
