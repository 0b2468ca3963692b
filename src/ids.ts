/**
 * Public identifiers: a type prefix and a ULID, so ids sort by creation time (cursor
 * pagination walks them) and say what they name (`ntf_…`, `dlv_…`).
 */
import { monotonicFactory } from 'ulid';

/**
 * A ULID maker whose ids carry the time they were made at: increasing within this process while
 * the clock moves forward, and starting over from the clock's time when it steps back. ulid's
 * monotonic factory alone keeps the largest time it has seen, so after an injected clock stepped
 * back (a test's manual clock) every id would claim a later time than its row, and a
 * time filter over ids (GET /v1/deliveries?until=) would miss it.
 */
export function ulidMaker(): (now: number) => string {
  let last = -Infinity;
  let next = monotonicFactory();
  return (now) => {
    if (now < last) next = monotonicFactory();
    last = now;
    return next(now);
  };
}

const ulid = ulidMaker();

export type IdPrefix = 'ntf' | 'dlv' | 'key' | 'ten' | 'cmp' | 'aud' | 'rpt' | 'usr' | 'ses' | 'act';

/** A new id such as `ntf_01JD…`, increasing within this process while its clock moves forward. */
export function newId(prefix: IdPrefix, now: number): string {
  return `${prefix}_${ulid(now)}`;
}

/** True when `value` has the shape of an id with this prefix. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`).test(value);
}
