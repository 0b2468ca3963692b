/**
 * One-click unsubscribe (RFC 8058), the URL marketing e-mail names in List-Unsubscribe. No
 * API key: the signed token in the path is the authorisation, for exactly one opt-out.
 *
 * - POST /v1/unsubscribe/:token records the opt-out and answers 200. Mail clients send
 *   `List-Unsubscribe=One-Click` (form-encoded or multipart); any body is accepted, since the
 *   token alone decides, and the same POST twice is the same opt-out.
 * - GET /v1/unsubscribe/:token changes nothing: link scanners and previews prefetch GETs. It
 *   shows a page whose button POSTs to the same URL.
 *
 * A forged, edited or malformed token is 404 `unsubscribe_link_invalid`. Tokens never reach
 * a log line (the route's request serializer drops the path) or a problem's `instance`.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../../clock.js';
import { HeraldError, toProblem } from '../../errors.js';
import { UNSUBSCRIBE_PATH, UnsubscribeLinks } from '../../preferences/unsubscribe-links.js';
import type { UnsubscribeScope } from '../../preferences/unsubscribe-token.js';
import type { Store } from '../../store/store.js';

export interface UnsubscribeRouteDeps {
  store: Store;
  clock: Clock;
  /** The verifier (its key is the one the workers sign with). Default: one over `store`. */
  unsubscribe?: UnsubscribeLinks;
}

const tokenParams = { type: 'object', properties: { token: { type: 'string', maxLength: 1500 } }, required: ['token'] } as const;
const htmlResponse = { description: 'A minimal HTML page', content: { 'text/html': { schema: { type: 'string' } } } };
const problemResponse = { description: 'unsubscribe_link_invalid', content: { 'application/problem+json': { schema: { $ref: 'problem#' } } } };

/** Never the token: the path is logged without it. */
/** What both unsubscribe routes declare beside their summary: the token in the path, an HTML page or the invalid-link problem. */
const tokenPageSchema = {
  tags: ['preferences'],
  security: [],
  params: tokenParams,
  response: { 200: htmlResponse, 404: problemResponse },
};
const logSerializers = { req: (req: { method: string }) => ({ method: req.method, url: `${UNSUBSCRIBE_PATH}/[token]` }) };

function describe(scope: UnsubscribeScope): string {
  const what = scope.purpose === null ? 'marketing and conversational messages' : `${scope.purpose} messages`;
  const channel = scope.channel === 'email' ? 'e-mail' : scope.channel === 'sms' ? 'SMS' : 'push notifications';
  return `${what} by ${channel}`;
}

function page(reply: FastifyReply, title: string, body: string): FastifyReply {
  // No referrer (the URL is a credential), nothing cached or indexed, no script, forms only to here.
  return reply
    .code(200)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex',
      'content-security-policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
    })
    .send(
      `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title><body>${body}</body></html>`,
    );
}

function invalidLink(reply: FastifyReply): FastifyReply {
  const err = new HeraldError('unsubscribe_link_invalid', 'this unsubscribe link is not one Herald issued, or it was changed');
  return reply
    .code(err.status)
    .type('application/problem+json')
    .send(toProblem(err, `${UNSUBSCRIBE_PATH}/{token}`));
}

/** Registers the one-click unsubscribe routes in their own scope (no API key; any body accepted). */
export async function unsubscribeRoutes(app: FastifyInstance, deps: UnsubscribeRouteDeps): Promise<void> {
  const clock = deps.clock;
  const links = deps.unsubscribe ?? new UnsubscribeLinks({ store: deps.store, clock });
  await app.register(async (scope) => {
    // RFC 8058 bodies are form-encoded or multipart; the token decides, so the body is read and ignored.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 4096 }, (_req, body, done) => done(null, body));

    scope.post<{ Params: { token: string } }>(
      `${UNSUBSCRIBE_PATH}/:token`,
      {
        logSerializers,
        schema: {
          summary: 'One-click unsubscribe (RFC 8058)',
          description:
            'The URL of a marketing e-mail’s `List-Unsubscribe` header. Records the opt-out the signed token names (by default: marketing on ' +
            'that channel) and answers 200; repeating it changes nothing. Mail clients send the body `List-Unsubscribe=One-Click`.',
          ...tokenPageSchema,
        },
      },
      async (request, reply) => {
        const scopeOf = await links.verify(request.params.token);
        if (!scopeOf) return invalidLink(reply);
        await deps.store.preferences.addOptOut({
          tenantId: scopeOf.tenantId,
          recipientId: scopeOf.recipientId,
          optOut: { channel: scopeOf.channel, purpose: scopeOf.purpose },
          source: 'one_click',
          now: clock.now(),
        });
        return page(reply, 'Unsubscribed', `<h1>You are unsubscribed</h1><p>You will not receive ${describe(scopeOf)} from this sender any more.</p>`);
      },
    );

    scope.get<{ Params: { token: string } }>(
      `${UNSUBSCRIBE_PATH}/:token`,
      {
        logSerializers,
        schema: {
          summary: 'Unsubscribe confirmation page',
          description: 'Shows what the link unsubscribes from, with a button that POSTs to the same URL. Changes nothing: scanners prefetch links.',
          ...tokenPageSchema,
        },
      },
      async (request, reply) => {
        const scopeOf = await links.verify(request.params.token);
        if (!scopeOf) return invalidLink(reply);
        // An empty action posts back to this very URL; the hidden field is the RFC 8058 body.
        return page(
          reply,
          'Unsubscribe',
          `<h1>Unsubscribe?</h1><p>Stop ${describe(scopeOf)} from this sender. Nothing has changed yet.</p>` +
            '<form method="post" action=""><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>',
        );
      },
    );
  });
}
