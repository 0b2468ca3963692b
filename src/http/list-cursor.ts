/**
 * The opaque cursor of the id-keyed lists (deliveries, the review queue, campaigns): the last
 * id of the page, base64url. Opaque so clients do not build them; checked on the way back so a
 * made-up or foreign cursor is a 400 `invalid_cursor`, never a silent empty page.
 */
import { HeraldError } from '../errors.js';
import { isId, type IdPrefix } from '../ids.js';

/** The cursor that continues after `id`. */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

/** The id a cursor of a `prefix` list continues after; `invalid_cursor` when it is not one this API issued for that list. */
export function decodeCursor(cursor: string, prefix: IdPrefix = 'dlv'): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isId(prefix, id))
    throw new HeraldError('invalid_cursor', 'cursor must be a next_cursor value returned by this endpoint', [
      { field: 'query.cursor', message: 'is not a cursor this API issued' },
    ]);
  return id;
}

/**
 * The opaque cursor of a list keyed by a number (alert and erasure ids, audience positions):
 * `<kind>:<n>`, base64url, so one list's cursor is refused by another.
 */
export function encodeNumberCursor(kind: string, n: number | string): string {
  return Buffer.from(`${kind}:${n}`, 'utf8').toString('base64url');
}

/** The number a `kind` list's cursor continues after; `invalid_cursor` when it is not one this API issued for that list. */
export function decodeNumberCursor(kind: string, cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const prefix = `${kind}:`;
  const n = text.slice(prefix.length);
  if (!text.startsWith(prefix) || !/^(?:0|[1-9][0-9]{0,15})$/.test(n))
    throw new HeraldError('invalid_cursor', 'cursor must be a next_cursor value returned by this endpoint', [
      { field: 'query.cursor', message: 'is not a cursor this API issued' },
    ]);
  return Number(n);
}

/**
 * The query fields of one page of a cursor list: `cursor` (a next_cursor) and `limit`, 1-200
 * (checked by the pattern, so a handler's Number() never sees anything else). Spread into a
 * route's querystring properties; `pageLimit` reads the limit with its default.
 */
export const PAGE_QUERY = {
  cursor: { type: 'string', maxLength: 200 },
  limit: { type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$', description: '1-200, default 50' },
} as const;

/** The querystring of a list that takes nothing but its page (`PAGE_QUERY`). */
export const PAGE_ONLY_QUERYSTRING = {
  type: 'object',
  additionalProperties: false,
  properties: { ...PAGE_QUERY },
} as const;

/** The 200 body of one page of a cursor list: `items` of the given schema, and `next_cursor` (null on the last page). */
export function pageOf<Item extends object>(item: Item) {
  return {
    type: 'object',
    required: ['items', 'next_cursor'],
    properties: { items: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'] } },
  } as const;
}

/** A page's `limit` query field as a number; 50 when absent. */
export function pageLimit(limit: string | undefined): number {
  return limit === undefined ? 50 : Number(limit);
}
