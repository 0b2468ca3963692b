/**
 * Turns every error into an RFC 9457 problem document with a stable code: Herald's own
 * errors, Fastify's validation and body-parsing errors, unknown routes, and anything
 * unexpected (500, logged with its cause, never with the request body).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HeraldError, toProblem, type FieldError } from '../errors.js';

/** Sends a problem document for a HeraldError. */
export function sendProblem(reply: FastifyReply, request: FastifyRequest, err: HeraldError): FastifyReply {
  if (err.code === 'unauthorized') reply.header('www-authenticate', 'Bearer');
  if (err.retryAfterS !== null) reply.header('retry-after', String(err.retryAfterS));
  return reply
    .code(err.status)
    .type('application/problem+json')
    .send(toProblem(err, request.url.split('?')[0]));
}

function fieldOf(v: NonNullable<FastifyError['validation']>[number], context: string | undefined): FieldError {
  const base = v.instancePath
    .split('/')
    .filter(Boolean)
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
  const params = v.params;
  const prefix = context === 'querystring' ? 'query.' : '';
  if (v.keyword === 'additionalProperties') {
    const extra = String(params.additionalProperty);
    return { field: prefix + (base ? `${base}.${extra}` : extra), message: 'is not a known field' };
  }
  if (v.keyword === 'required') {
    const missing = String(params.missingProperty);
    return { field: prefix + (base ? `${base}.${missing}` : missing), message: 'is required' };
  }
  if (v.keyword === 'enum') {
    return { field: prefix + (base || '(body)'), message: `must be one of ${(params.allowedValues as unknown[]).join(', ')}` };
  }
  return { field: prefix + (base || '(body)'), message: v.message ?? 'is invalid' };
}

/**
 * The `validation_failed` error for a schema's failures, fields named as the body's (a batch
 * validates each item with this, so an item's errors read as a single request's would).
 */
export function validationFailure(validation: NonNullable<FastifyError['validation']>, context?: string): HeraldError {
  const errors = validation.map((v) => fieldOf(v, context));
  const first = errors[0] ?? { field: '(body)', message: 'is invalid' };
  return new HeraldError('validation_failed', `${first.field} ${first.message}`, errors);
}

/** Maps a Fastify error (validation, parsing) to Herald's registry, or null if it is not one. */
function fromFastify(err: FastifyError): HeraldError | null {
  if (err.validation) return validationFailure(err.validation, err.validationContext);
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HeraldError('invalid_json', 'the body is not valid JSON', [], { cause: err });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HeraldError('payload_too_large', 'the body is larger than 256 KiB', [], { cause: err });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      // The media type was fine; the body was cut short or overran its length: not JSON we can read.
      return new HeraldError('invalid_json', 'the body does not match its Content-Length', [], { cause: err });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HeraldError('unsupported_media_type', 'send the body as application/json', [], { cause: err });
  }
  if (err.statusCode === 400 && /JSON/i.test(err.message)) {
    return new HeraldError('invalid_json', 'the body is not valid JSON', [], { cause: err });
  }
  return null;
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route runs (a path with a
 * broken percent-encoding, a path parameter over `maxParamLength`) as problem documents, not
 * Fastify's own `{statusCode, error}` JSON. Found by the fuzz suite (test/fuzz/).
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let herald: HeraldError;
  if (error.code === 'FST_ERR_BAD_URL') herald = new HeraldError('invalid_url', 'the URL has a broken percent-encoding', [], { cause: error });
  else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    herald = new HeraldError('uri_too_long', 'a path parameter is longer than 1,600 characters', [], { cause: error });
  else {
    request.log.error({ err: error }, 'router error');
    herald = new HeraldError('internal_error', 'an unexpected error occurred; it has been logged', [], { cause: error });
  }
  void sendProblem(reply, request, herald);
}

/** Installs the error and not-found handlers on an app. */
export function installProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const herald = error instanceof HeraldError ? error : fromFastify(error);
    if (herald) return sendProblem(reply, request, herald);
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, request, new HeraldError('internal_error', 'an unexpected error occurred; it has been logged', [], { cause: error }));
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, request, new HeraldError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
