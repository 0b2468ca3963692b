/**
 * Audience uploads: POST /v1/audiences takes NDJSON or CSV as a stream (its own content-type
 * parsers, in this plugin's scope only, hand the handler the raw body), and the rows are
 * written a batch at a time as they are parsed. The JSON body limit (256 KiB) does not apply;
 * the upload's own cap is 200 MiB (audience_too_large). GET /v1/audiences/:id shows one.
 */
import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import type { Clock } from '../../clock.js';
import { AudienceLoader } from '../../campaigns/audience-loader.js';
import { DEFAULT_PARSE_LIMITS, parseAudience, type AudienceFormat } from '../../campaigns/audience-parser.js';
import { audienceJson } from '../../campaigns/campaign-progress.js';
import { HeraldError } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Store } from '../../store/store.js';
import { answer } from '../response-schemas.js';

const problemRef = { $ref: 'problem#' };

export interface AudienceRouteDeps {
  store: Store;
  clock: Clock;
}

const FORMATS: Record<string, AudienceFormat> = {
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'text/csv': 'csv',
};

/** The upload's format from its Content-Type, or null when it is not one Herald reads (a charset other than UTF-8 included). */
function formatOf(contentType: string | undefined): AudienceFormat | null {
  if (!contentType) return null;
  const [type, ...params] = contentType.split(';').map((p) => p.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return null;
  return FORMATS[type!] ?? null;
}

function isStream(body: unknown): body is Readable {
  return typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';
}

/** Registers the audience routes on an authenticated scope. */
export function audienceRoutes(app: FastifyInstance, deps: AudienceRouteDeps): void {
  const loader = new AudienceLoader({ store: deps.store, clock: deps.clock, logger: app.log });

  void app.register(async (scope) => {
    // Every non-JSON body reaches the handler unread, as a stream; the handler decides whether it is an upload.
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    scope.post<{ Body: unknown }>(
      '/v1/audiences',
      {
        // The body is a stream checked while it is read: the schema below is for the OpenAPI document only.
        validatorCompiler: () => () => true,
        schema: {
          summary: 'Upload an audience (NDJSON or CSV), streamed',
          description:
            'One recipient per line, as `application/x-ndjson` (`{"id":"u1","email":"ada@example.com","locale":"en"}`) or `text/csv` with a header ' +
            'line naming the columns (`id,email,phone,push_token,locale`). A row that gives only an `id` takes the addresses of the stored recipient ' +
            '(PUT /v1/recipients/{id}). Rows are checked as POST /v1/notifications checks a recipient; a repeated id keeps its first row. Any bad row ' +
            'refuses the whole upload with `audience_invalid`, naming up to ten lines. At most 200 MiB. Use the answer’s `id` as ' +
            '`audience.audience_id` in POST /v1/campaigns.',
          tags: ['campaigns'],
          consumes: ['application/x-ndjson', 'text/csv'],
          body: { type: 'string', description: 'NDJSON or CSV, UTF-8' },
          response: { 201: answer.audience, 400: problemRef, 401: problemRef, 413: problemRef, 415: problemRef, 422: problemRef },
        },
      },
      async (request, reply) => {
        const format = formatOf(request.headers['content-type']);
        if (format === null || !isStream(request.body)) {
          throw new HeraldError('unsupported_audience_format', 'send the audience as application/x-ndjson or text/csv (UTF-8)');
        }
        // A declared length over the limit is refused before a byte is read, as the JSON routes'
        // bodyLimit does (found by the fuzz suite's size check: it read the whole stream first).
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > DEFAULT_PARSE_LIMITS.maxBytes) {
          reply.header('connection', 'close');
          throw new HeraldError(
            'audience_too_large',
            `the upload declares ${declared} bytes, more than ${DEFAULT_PARSE_LIMITS.maxBytes / 1024 / 1024} MiB; split the audience`,
          );
        }
        try {
          const rows = parseAudience(request.body, format, DEFAULT_PARSE_LIMITS);
          const audience = await loader.load(request.tenantId, format, rows, (line) => `line ${line}`);
          return reply.code(201).send(audienceJson(audience));
        } catch (err) {
          // The rest of an oversized upload is not read: close the connection after answering.
          if (err instanceof HeraldError && err.code === 'audience_too_large') reply.header('connection', 'close');
          throw err;
        }
      },
    );
  });

  app.get<{ Params: { id: string } }>(
    '/v1/audiences/:id',
    {
      schema: {
        summary: 'An uploaded audience: size, duplicates skipped, how many recipients have each address',
        tags: ['campaigns'],
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        response: { 200: answer.audience, 401: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const a = isId('aud', request.params.id) ? await deps.store.campaigns.getAudience(request.tenantId, request.params.id) : null;
      if (!a || a.status !== 'ready') throw new HeraldError('not_found', `no audience ${request.params.id}`);
      return audienceJson(a);
    },
  );
}
