/**
 * Public identifiers: a type prefix and a ULID, so ids sort by creation time (cursor
 * pagination walks them) and say what they name (`ntf_…`, `dlv_…`).
 */
import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

export type IdPrefix = 'ntf' | 'dlv' | 'key' | 'ten' | 'cmp' | 'aud' | 'rpt' | 'usr' | 'ses' | 'act';

/** A new id such as `ntf_01JD…`, increasing within this process. */
export function newId(prefix: IdPrefix, now: number): string {
  return `${prefix}_${ulid(now)}`;
}

/** True when `value` has the shape of an id with this prefix. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`).test(value);
}
